import { randomUUID } from "node:crypto";
import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import type { Holding } from "../../domain/valuation";
import type { PositionSnapshot } from "../../domain/position";
import { completeHolding, completenessOf, type PriceReach, type StoredHolding } from "../../domain/valuation";
import type {
  PositionRepository,
  SnapshotRef,
  StaleMarker,
  StoredValuation,
} from "../../ports/investment-repositories";
import { bulkDelete, bulkRead, bulkUpsert, bulkWithRetry, type DocRef } from "./bulk";
import { isNotFound, stripSystem } from "./cosmos-errors";
import { AGAIN, CONFLICTS, retry, stillContended } from "./retry";
import {
  clearStale,
  dropWriting,
  markStale,
  portfoliosStaleSince,
  staleMarkers,
  stalePortfolios,
  writingRefs,
} from "./cosmos-stale-markers";

interface SnapshotDoc extends PositionSnapshot {
  id: string;
  docType: "snapshot";
  securityIds: string[];
}

/** A valuation's header; its holdings live in chunk documents so no document nears Cosmos DB's 2 MB limit. */
interface ValuationDoc extends Omit<StoredValuation, "holdings" | "version" | "complete" | "unvaluedCount"> {
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
const toSnapshot = ({ id: _i, docType: _d, securityIds: _s, ...snapshot }: SnapshotDoc): PositionSnapshot => snapshot;
const refOf = (r: SnapshotRef): string => `${r.portfolioId}|${r.date}`;

/** Snapshots and valuations in the `positions` container (partition /portfolioId). */
export class CosmosPositionRepository implements PositionRepository {
  constructor(private readonly container: Container) {}

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
    await bulkUpsert(this.container, docs as unknown as JSONObject[]);
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
    return saved ?? false;
  }

  async saveValuations(valuations: readonly StoredValuation[]): Promise<boolean[]> {
    const saved = new Array<boolean>(valuations.length).fill(false);
    if (valuations.length === 0) return saved;
    const runs = valuations.map((valuation, index) => {
      const runId = randomUUID();
      const { portfolioId, date, holdings, ...header } = valuation;
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
      return { index, doc, chunks };
    });
    const chunkRefs = (portfolioId: string, date: string, run: string, count: number): DocRef[] =>
      Array.from({ length: count }, (_, i) => ({ id: chunkId(date, run, i), partitionKey: portfolioId }));
    // Chunks first, then the headers that point at them: a reader never sees a half-written valuation.
    await bulkUpsert(
      this.container,
      runs.flatMap((r) => r.chunks as unknown as JSONObject[]),
    );
    let pending = runs;
    return retry(
      CONFLICTS,
      async () => {
        const previous = await bulkRead<ValuationDoc>(
          this.container,
          pending.map(({ doc }) => ({ id: doc.id, partitionKey: doc.portfolioId })),
          true,
        );
        const dropped: DocRef[] = [];
        const writes: { run: (typeof runs)[number]; before: ValuationDoc | undefined; op: OperationInput }[] = [];
        for (const run of pending) {
          const { doc, chunks } = run;
          const before = previous.get(`${doc.portfolioId}|${doc.id}`);
          // A computation that started later is already stored: ours is older and must not replace it.
          if (before !== undefined && (before.version ?? "") >= (doc.version ?? "")) {
            dropped.push(...chunkRefs(doc.portfolioId, doc.date, doc.runId, chunks.length));
            continue;
          }
          // The header is written only over the version we compared with (or where there was none).
          writes.push({
            run,
            before,
            op:
              before === undefined
                ? { operationType: BulkOperationType.Create, resourceBody: doc as unknown as JSONObject }
                : {
                    operationType: BulkOperationType.Replace,
                    id: doc.id,
                    resourceBody: doc as unknown as JSONObject,
                    ifMatch: before._etag ?? "",
                  },
          });
        }
        const results = await bulkWithRetry(
          this.container,
          writes.map((w) => w.op),
        );
        const raced: typeof runs = [];
        writes.forEach(({ run, before }, i) => {
          const result = results[i];
          if (result === undefined) return;
          if (result.statusCode === 409 || result.statusCode === 412) raced.push(run);
          else if (result.statusCode < 200 || result.statusCode > 299)
            throw new Error(`storing a valuation header failed with ${result.statusCode}`);
          else {
            saved[run.index] = true;
            if (before !== undefined)
              dropped.push(...chunkRefs(before.portfolioId, before.date, before.runId, before.chunks));
          }
        });
        await bulkDelete(this.container, dropped);
        pending = raced;
        return raced.length > 0 ? AGAIN : saved;
      },
      () =>
        stillContended(
          `the valuation of portfolio ${pending[0]?.doc.portfolioId ?? ""} on ${pending[0]?.doc.date ?? ""}`,
        ),
    );
  }

  async valuation(
    portfolioId: string,
    date: string,
    orEarlier: boolean,
    attempt = 0,
  ): Promise<StoredValuation | undefined> {
    let header = await this.header(portfolioId, date);
    if (header === undefined && orEarlier) {
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
    }
    if (header === undefined) return undefined;
    const found = header;
    const chunks = await bulkRead<ChunkDoc>(
      this.container,
      Array.from({ length: found.chunks }, (_, i) => ({
        id: chunkId(found.date, found.runId, i),
        partitionKey: portfolioId,
      })),
    );
    // A newer computation replaced this header (and dropped its chunks) while we read: read the newer one,
    // so holdings and totalValue always come from one computation.
    if (chunks.size < found.chunks && attempt < 3) return this.valuation(portfolioId, found.date, false, attempt + 1);
    const holdings: Holding[] = [];
    for (let i = 0; i < found.chunks; i++)
      for (const h of chunks.get(`${portfolioId}|${chunkId(found.date, found.runId, i)}`)?.holdings ?? [])
        holdings.push(completeHolding(h));
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
