import { randomUUID } from "node:crypto";
import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import type { PositionSnapshot } from "../../domain/position";
import {
  completeHolding,
  completenessOf,
  type Holding,
  type PriceReach,
  type StoredHolding,
} from "../../domain/valuation";
import { systemClock, type Clock } from "../../ports/clock";
import type {
  AsAt,
  PositionRepository,
  SnapshotRef,
  StaleMarker,
  StoredValuation,
} from "../../ports/investment-repositories";
import { bulkDelete, bulkRead, bulkUpsert, bulkWithRetry, refKey, sameContent, type DocRef } from "./bulk";
import { isNotFound, stripSystem } from "./cosmos-errors";
import { asAtFirst } from "./versions/as-at-lists";
import { readAsAt, type AsAtSource } from "./versions/as-at-reads";
import type { WithRecorded } from "./versions/recorded";
import { versionsBeside, type VersionedKind } from "./versions/version-docs";
import { writeVersioned, type VersionedTarget } from "./versions/versioned-writes";
import { ValuationChunkCache } from "./valuation-chunk-cache";
import {
  clearStale,
  dropWriting,
  markStale,
  portfoliosStaleSince,
  staleMarkers,
  stalePortfolios,
  writingRefs,
} from "./cosmos-stale-markers";

interface SnapshotDoc extends PositionSnapshot, WithRecorded {
  id: string;
  docType: "snapshot";
  securityIds: string[];
}

/**
 * A valuation's header; its holdings live in chunk documents so no document nears Cosmos DB's 2 MB limit.
 * A newer computation replaces the header (its version goes to `versions`) and keeps the chunks it named.
 */
interface ValuationDoc
  extends Omit<StoredValuation, "holdings" | "version" | "jobId" | "complete" | "unvaluedCount">, WithRecorded {
  id: string;
  /** Absent on valuations stored before versions existed: older than any versioned one. */
  version?: string;
  /** Absent on valuations stored before completeness was recorded: derived from their holdings. */
  complete?: boolean;
  unvaluedCount?: number;
  _etag?: string;
  docType: "valuation";
  runId: string;
  chunks: number;
}

interface ChunkDoc {
  id: string;
  portfolioId: string;
  docType: "valuation-chunk";
  holdings: StoredHolding[];
  /**
   * The computation's version, as on its header: the SQL replica stages chunks until their header
   * arrives and keeps a newer computation's chunks when an older header comes first.
   */
  version: string;
}

const CHUNK_SIZE = 1000;
/** Securities per snapshotsHolding query: a 10,000-price batch names at most a few thousand. */
const HOLDING_QUERY = 2000;
const snapshotId = (date: string): string => `snap|${date}`;
const valuationId = (date: string): string => `val|${date}`;
const chunkId = (date: string, runId: string, index: number): string => `val|${date}|${runId}|${index}`;
const toSnapshot = ({
  id: _i,
  docType: _d,
  securityIds: _s,
  recorded: _r,
  ...snapshot
}: SnapshotDoc): PositionSnapshot => snapshot;
const refOf = (r: SnapshotRef): string => `${r.portfolioId}|${r.date}`;

const snapshotKind: VersionedKind<SnapshotDoc> = {
  kind: "snapshot",
  partitionKeyOf: (doc) => doc.portfolioId,
  recordIdOf: (doc) => doc.id,
};
const valuationKind: VersionedKind<ValuationDoc> = {
  kind: "valuation",
  partitionKeyOf: (doc) => doc.portfolioId,
  recordIdOf: (doc) => doc.id,
};
const isValuation = (doc: object): boolean => (doc as { docType?: unknown }).docType === "valuation";

/**
 * Snapshots and valuations in the `positions` container (partition /portfolioId). A replaced snapshot and
 * a replaced valuation header record their versions in `versions`; a replaced valuation's chunks stay.
 */
export class CosmosPositionRepository implements PositionRepository {
  private readonly snapshots: VersionedTarget<SnapshotDoc>;
  private readonly valuations: VersionedTarget<ValuationDoc>;
  private readonly valuationSource: AsAtSource;

  constructor(
    private readonly container: Container,
    versions: Container = versionsBeside(container),
    clock: Clock = systemClock,
    /** One per process: chunks are immutable, so every reader may share it. */
    private readonly chunkCache = new ValuationChunkCache(),
  ) {
    this.snapshots = { container, versions, kind: snapshotKind, clock };
    this.valuations = { container, versions, kind: valuationKind, clock };
    this.valuationSource = { container, versions, kind: valuationKind.kind };
  }

  markStale(
    refs: readonly SnapshotRef[],
    mark: { markedAt: string; jobId: string | null; writing: boolean },
  ): Promise<void> {
    return markStale(this.container, refs, mark);
  }

  dropWriting(refs: readonly SnapshotRef[], jobId: string): Promise<void> {
    return dropWriting(this.container, refs, jobId);
  }

  writingRefs(jobId: string): Promise<SnapshotRef[]> {
    return writingRefs(this.container, jobId);
  }

  clearStale(markers: readonly StaleMarker[]): Promise<boolean[]> {
    return clearStale(this.container, markers);
  }

  staleMarkers(portfolioId: string, limit: number): Promise<StaleMarker[]> {
    return staleMarkers(this.container, portfolioId, limit);
  }

  stalePortfolios(portfolioIds: readonly string[]): Promise<Set<string>> {
    return stalePortfolios(this.container, portfolioIds);
  }

  portfoliosStaleSince(before: string, limit: number): Promise<string[]> {
    return portfoliosStaleSince(this.container, before, limit);
  }

  async getSnapshots(refs: readonly SnapshotRef[]): Promise<Map<string, PositionSnapshot>> {
    const docs = await bulkRead<SnapshotDoc>(
      this.container,
      refs.map((r) => ({ id: snapshotId(r.date), partitionKey: r.portfolioId })),
    );
    const out = new Map<string, PositionSnapshot>();
    for (const doc of docs.values()) out.set(refOf(doc), toSnapshot(doc));
    return out;
  }

  async saveSnapshots(snapshots: readonly PositionSnapshot[]): Promise<void> {
    const docs: SnapshotDoc[] = snapshots.map((s) => ({
      ...s,
      id: snapshotId(s.date),
      docType: "snapshot",
      securityIds: [...new Set(s.positions.map((p) => p.securityId))],
    }));
    await writeVersioned(
      this.snapshots,
      docs.map((doc) => ({ id: doc.id, partitionKey: doc.portfolioId })),
      (before, i) => {
        const doc = docs[i];
        return doc === undefined || (before !== undefined && sameContent(before, doc)) ? undefined : doc;
      },
    );
  }

  async dropReplaced(jobId: string): Promise<void> {
    // A query across portfolios, once per file of several calls: the snapshots it wrote before its last call.
    const { resources } = await this.container.items
      .query<SnapshotDoc & { _etag?: string }>({
        query: "SELECT * FROM c WHERE c.docType = 'snapshot' AND c.jobId = @job AND IS_DEFINED(c.replaced)",
        parameters: [{ name: "@job", value: jobId }],
      })
      .fetchAll();
    // Each replaced only as read: a snapshot another import rewrote meanwhile has no `replaced` of ours.
    // Bookkeeping, not a change of the record: its positions and version (`recorded`) stay as they are,
    // and a versioned write racing this one loses on the ETag and reads again.
    const results = await bulkWithRetry(
      this.container,
      resources.map((doc) => {
        const { replaced: _r, ...rest } = stripSystem(doc);
        return {
          operationType: BulkOperationType.Replace,
          id: doc.id,
          partitionKey: doc.portfolioId,
          resourceBody: rest as unknown as JSONObject,
          ifMatch: doc._etag ?? "",
        };
      }),
    );
    const failed = results.find(
      (r) => r.statusCode !== 412 && r.statusCode !== 404 && (r.statusCode < 200 || r.statusCode > 299),
    );
    if (failed !== undefined) throw new Error(`tidying a file's snapshots failed with ${failed.statusCode}`);
  }

  async latestSnapshot(portfolioId: string, onOrBefore: string): Promise<PositionSnapshot | undefined> {
    const { resources } = await this.container.items
      .query<SnapshotDoc>(
        {
          query:
            "SELECT TOP 1 * FROM c WHERE c.portfolioId = @p AND c.docType = 'snapshot' AND c.date <= @d ORDER BY c.date DESC",
          parameters: [
            { name: "@p", value: portfolioId },
            { name: "@d", value: onOrBefore },
          ],
        },
        { partitionKey: portfolioId },
      )
      .fetchAll();
    const doc = resources[0];
    return doc === undefined ? undefined : toSnapshot(doc);
  }

  async snapshotsHolding(reach: readonly PriceReach[]): Promise<SnapshotRef[]> {
    const out = new Map<string, SnapshotRef>();
    // One query per HOLDING_QUERY securities (a file's batch of prices: usually one), over the widest
    // reach among them: a superset of the snapshots each security's own reach names.
    for (let i = 0; i < reach.length; i += HOLDING_QUERY) {
      const slice = reach.slice(i, i + HOLDING_QUERY);
      const from = slice.reduce((min, r) => (r.from < min ? r.from : min), slice[0]?.from ?? "");
      const until = slice.every((r) => r.until !== undefined)
        ? slice.reduce((max, r) => ((r.until ?? "") > max ? (r.until ?? "") : max), "")
        : undefined;
      const { resources } = await this.container.items
        .query<SnapshotRef>({
          query: `SELECT c.portfolioId, c.date FROM c WHERE c.docType = 'snapshot' AND c.date >= @from${until === undefined ? "" : " AND c.date < @until"} AND EXISTS(SELECT VALUE s FROM s IN c.securityIds WHERE ARRAY_CONTAINS(@ids, s))`,
          parameters: [
            { name: "@from", value: from },
            ...(until === undefined ? [] : [{ name: "@until", value: until }]),
            { name: "@ids", value: slice.map((r) => r.securityId) },
          ],
        })
        .fetchAll();
      for (const r of resources) out.set(refOf(r), { portfolioId: r.portfolioId, date: r.date });
    }
    return [...out.values()];
  }

  async snapshotDates(portfolioIds: readonly string[], from: string): Promise<string[]> {
    const { resources } = await this.container.items
      .query<string>({
        query:
          "SELECT VALUE c.date FROM c WHERE c.docType = 'snapshot' AND ARRAY_CONTAINS(@ids, c.portfolioId) AND c.date >= @from",
        parameters: [
          { name: "@ids", value: [...new Set(portfolioIds)] },
          { name: "@from", value: from },
        ],
      })
      .fetchAll();
    return [...new Set(resources)].sort();
  }

  async snapshotsFrom(from: string): Promise<(SnapshotRef & { currencies: string[] })[]> {
    const { resources } = await this.container.items
      .query<SnapshotRef & { currencies: string[] }>({
        query: "SELECT c.portfolioId, c.date, c.currencies FROM c WHERE c.docType = 'snapshot' AND c.date >= @from",
        parameters: [{ name: "@from", value: from }],
      })
      .fetchAll();
    return resources;
  }

  async saveValuation(valuation: StoredValuation): Promise<boolean> {
    const [saved] = await this.saveValuations([valuation]);
    return saved !== undefined;
  }

  async saveValuations(valuations: readonly StoredValuation[]): Promise<(string | undefined)[]> {
    const saved = new Array<string | undefined>(valuations.length).fill(undefined);
    if (valuations.length === 0) return saved;
    const runs = valuations.map((valuation) => {
      const runId = randomUUID();
      const { portfolioId, date, holdings, jobId: _job, ...header } = valuation;
      const chunks: ChunkDoc[] = [];
      for (let i = 0; i * CHUNK_SIZE < holdings.length || i === 0; i++) {
        chunks.push({
          id: chunkId(date, runId, i),
          portfolioId,
          docType: "valuation-chunk",
          holdings: holdings.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE),
          version: valuation.version,
        });
      }
      const doc: ValuationDoc = {
        ...header,
        portfolioId,
        date,
        id: valuationId(date),
        docType: "valuation",
        runId,
        chunks: chunks.length,
      };
      return { doc, chunks };
    });
    const chunkRefs = (portfolioId: string, date: string, run: string, count: number): DocRef[] =>
      Array.from({ length: count }, (_, i) => ({ id: chunkId(date, run, i), partitionKey: portfolioId }));
    // Chunks first, then the headers that point at them: a reader never sees a half-written valuation.
    await bulkUpsert(
      this.container,
      runs.flatMap((r) => r.chunks as unknown as JSONObject[]),
    );
    // The header is written only over an older computation's (or where there was none), conditional on
    // the version compared with; the header it replaces goes to `versions` and its chunks stay.
    const outcomes = await writeVersioned(
      this.valuations,
      runs.map(({ doc }) => ({ id: doc.id, partitionKey: doc.portfolioId })),
      (before, i) => {
        const doc = runs[i]?.doc;
        // A computation that started later is already stored: ours is older and must not replace it.
        if (doc === undefined || (before !== undefined && (before.version ?? "") >= (doc.version ?? "")))
          return undefined;
        return doc;
      },
      { contextOf: (i) => ({ jobId: valuations[i]?.jobId ?? null }) },
    );
    const dropped: DocRef[] = [];
    outcomes.forEach((o, i) => {
      const run = runs[i];
      if (run === undefined) return;
      if (o.outcome === "created" || o.outcome === "updated") saved[i] = o.recordedAt;
      // Never named by a stored header: gone.
      else dropped.push(...chunkRefs(run.doc.portfolioId, run.doc.date, run.doc.runId, run.chunks.length));
    });
    await bulkDelete(this.container, dropped);
    return saved;
  }

  async valuation(
    portfolioId: string,
    date: string,
    orEarlier: boolean,
    asAt?: AsAt,
    attempt = 0,
  ): Promise<StoredValuation | undefined> {
    let header =
      asAt === undefined ? await this.header(portfolioId, date) : await this.headerAsAt(portfolioId, date, asAt);
    if (header === undefined && orEarlier) {
      if (asAt === undefined) {
        const { resources } = await this.container.items
          .query<ValuationDoc>(
            {
              query:
                "SELECT TOP 1 * FROM c WHERE c.portfolioId = @p AND c.docType = 'valuation' AND c.date <= @d ORDER BY c.date DESC",
              parameters: [
                { name: "@p", value: portfolioId },
                { name: "@d", value: date },
              ],
            },
            { partitionKey: portfolioId },
          )
          .fetchAll();
        header = resources[0];
      } else {
        const [found] = await asAtFirst(
          this.valuationSource,
          {
            where: ["c.portfolioId = @p", "c.docType = 'valuation'", "c.date <= @d"],
            parameters: [
              { name: "@p", value: portfolioId },
              { name: "@d", value: date },
            ],
            sortField: "date",
            descending: true,
            partitionKey: portfolioId,
          },
          1,
          asAt,
        );
        header = found as ValuationDoc | undefined;
      }
    }
    if (header === undefined) return undefined;
    const found = header;
    const refs = Array.from({ length: found.chunks }, (_, i) => ({
      id: chunkId(found.date, found.runId, i),
      partitionKey: portfolioId,
    }));
    const chunks = new Map<string, readonly Holding[]>();
    for (const ref of refs) {
      const cached = this.chunkCache.get(refKey(ref));
      if (cached !== undefined) chunks.set(refKey(ref), cached);
    }
    const read = await bulkRead<ChunkDoc>(
      this.container,
      refs.filter((ref) => !chunks.has(refKey(ref))),
    );
    for (const [key, doc] of read) chunks.set(key, this.chunkCache.set(key, doc.holdings.map(completeHolding)));
    // Chunks named by a header are never deleted; a header stored before that was true may name chunks
    // a newer computation dropped while we read: read the newer one, so holdings and totalValue always
    // come from one computation.
    if (chunks.size < found.chunks && attempt < 3)
      return this.valuation(portfolioId, found.date, false, asAt, attempt + 1);
    const holdings: Holding[] = [];
    for (const ref of refs) for (const h of chunks.get(refKey(ref)) ?? []) holdings.push(h);
    const derived = completenessOf(holdings);
    return {
      portfolioId,
      date: found.date,
      baseCurrency: found.baseCurrency,
      totalValue: found.totalValue,
      complete: found.complete ?? derived.complete,
      unvaluedCount: found.unvaluedCount ?? derived.unvaluedCount,
      valuedAt: found.valuedAt,
      version: found.version ?? "",
      holdings,
    };
  }

  private async headerAsAt(portfolioId: string, date: string, asAt: string): Promise<ValuationDoc | undefined> {
    const doc = await readAsAt(
      this.valuationSource,
      { id: valuationId(date), partitionKey: portfolioId },
      asAt,
      isValuation,
    );
    return doc as ValuationDoc | undefined;
  }

  async valuationVersions(refs: readonly SnapshotRef[]): Promise<Map<string, string>> {
    const headers = await bulkRead<ValuationDoc>(
      this.container,
      refs.map((r) => ({ id: valuationId(r.date), partitionKey: r.portfolioId })),
    );
    const out = new Map<string, string>();
    for (const doc of headers.values()) if (doc.docType === "valuation") out.set(refOf(doc), doc.version ?? "");
    return out;
  }

  private async header(portfolioId: string, date: string): Promise<ValuationDoc | undefined> {
    try {
      const { resource } = await this.container.item(valuationId(date), portfolioId).read<ValuationDoc>();
      return resource;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
