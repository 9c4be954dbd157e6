import {
  BulkOperationType,
  type Container,
  type JSONObject,
  type OperationInput,
  type SqlParameter,
} from "@azure/cosmos";
import { mapConcurrent } from "../../domain/concurrency";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { priceId, type Price } from "../../domain/price";
import type { PricePoint } from "../../domain/valuation";
import { systemClock, type Clock } from "../../ports/clock";
import type {
  AsAt,
  HistoryPage,
  PriceFilter,
  PriceKey,
  PriceRepository,
  WriteCounts,
} from "../../ports/investment-repositories";
import { bulkRead, bulkWithRetry } from "./bulk";
import { stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";
import { AGAIN, CONFLICTS, retry, stillContended } from "./retry";
import { asAtPagedQuery } from "./versions/as-at-lists";
import { type AsAtSource } from "./versions/as-at-reads";
import { historyEntries } from "./versions/history";
import type { WithRecorded } from "./versions/recorded";
import { versionsBeside, type VersionedKind } from "./versions/version-docs";
import { writeVersioned, type VersionedTarget } from "./versions/versioned-writes";

interface PriceDoc extends Price, WithRecorded {
  id: string;
  docType: "price";
}

const priceKind: VersionedKind<PriceDoc> = {
  kind: "price",
  partitionKeyOf: (doc) => doc.securityId,
  recordIdOf: (doc) => doc.id,
};

const toPrice = (doc: PriceDoc): Price => {
  const { id: _id, docType: _d, recorded: _r, ...price } = stripSystem(doc);
  const { _etag: _e, ...rest } = price as Price & { _etag?: string };
  return rest;
};

/** A security's newest point of each type and source: small, so imports and valuations read it cheaply. */
interface LatestDoc {
  id: "latest";
  securityId: string;
  docType: "price-latest";
  /** [date, type, source, price, currency], one per type and source. */
  points: [string, string, string, number, string][];
  _etag?: string;
}

const toPoint = ([date, type, source, price, currency]: LatestDoc["points"][number]): PricePoint => ({
  date,
  type: type as PricePoint["type"],
  source,
  price,
  currency,
});

/**
 * Prices in the `prices` container (partition /securityId, id `date|type|source`), and one `latest`
 * document per security. Counts come from the writes themselves: a create that conflicts is an
 * existing price, read and compared. A restated price records a version in `versions`.
 */
export class CosmosPriceRepository implements PriceRepository {
  /** The stored document each array handed out by latest() was read from (for a conditional write). */
  private readonly versions = new WeakMap<readonly PricePoint[], LatestDoc>();
  private readonly target: VersionedTarget<PriceDoc>;
  private readonly source: AsAtSource;

  constructor(
    private readonly container: Container,
    versions: Container = versionsBeside(container),
    clock: Clock = systemClock,
  ) {
    this.target = { container, versions, kind: priceKind, clock };
    this.source = { container, versions, kind: priceKind.kind };
  }

  async save(prices: readonly Price[], latest?: ReadonlyMap<string, readonly PricePoint[]>): Promise<WriteCounts> {
    const docs: PriceDoc[] = prices.map((p) => ({ ...p, id: priceId(p), docType: "price" }));
    // Created without a read (most prices are new); one that exists is read, compared and restated.
    const outcomes = await writeVersioned(
      this.target,
      docs.map((doc) => ({ id: doc.id, partitionKey: doc.securityId })),
      (before, i) => {
        const doc = docs[i];
        if (doc === undefined) return undefined;
        const same = before !== undefined && before.price === doc.price && before.currency === doc.currency;
        return same ? undefined : doc;
      },
      { createFirst: true },
    );
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const written: PriceDoc[] = [];
    outcomes.forEach((o, i) => {
      const doc = docs[i];
      if (o.outcome === "created") counts.created++;
      else if (o.outcome === "updated") counts.updated++;
      else counts.unchanged++;
      if ((o.outcome === "created" || o.outcome === "updated") && doc !== undefined) written.push(doc);
    });
    // Prices first, then the latest points: `latest` never names a price that is not stored.
    await this.mergeLatest(written, latest);
    return counts;
  }

  async getMany(refs: readonly { securityId: string; id: string }[]): Promise<Map<string, Price>> {
    const docs = await bulkRead<PriceDoc>(
      this.container,
      refs.map((r) => ({ id: r.id, partitionKey: r.securityId })),
    );
    const out = new Map<string, Price>();
    for (const { id: _id, docType, ...price } of docs.values())
      if (docType === "price") out.set(`${price.securityId}|${_id}`, price);
    return out;
  }

  async latest(securityIds: readonly string[]): Promise<Map<string, PricePoint[]>> {
    const docs = await bulkRead<LatestDoc>(
      this.container,
      [...new Set(securityIds)].map((id) => ({ id: "latest", partitionKey: id })),
      true,
    );
    const out = new Map<string, PricePoint[]>();
    for (const doc of docs.values()) {
      const points = doc.points.map(toPoint);
      this.versions.set(points, doc);
      out.set(doc.securityId, points);
    }
    return out;
  }

  async forValuation(
    securityIds: readonly string[],
    date: string,
    types: readonly PricePoint["type"][],
  ): Promise<Map<string, PricePoint[]>> {
    const latest = await this.latest(securityIds);
    const out = new Map<string, PricePoint[]>();
    const older: string[] = [];
    for (const securityId of new Set(securityIds)) {
      const points = latest.get(securityId) ?? [];
      // When no preferred type has a point after the date, the newest points are the answer;
      // otherwise an earlier point may be the one that counts, so read the newest on or before it.
      if (points.some((p) => types.includes(p.type) && p.date > date)) older.push(securityId);
      else out.set(securityId, points);
    }
    await mapConcurrent(older, 16, async (securityId) => {
      // Only types the security has at all can be found; `latest` holds every type and source.
      const present = new Set((latest.get(securityId) ?? []).map((p) => p.type));
      const perType = await Promise.all(
        [...new Set(types)].filter((t) => present.has(t)).map((type) => this.newestOnOrBefore(securityId, type, date)),
      );
      out.set(securityId, perType.flat());
    });
    return out;
  }

  /**
   * Every point of one type on its newest date on or before `date`, whatever the source: what
   * selectPrice needs of that type (the newest date wins, then the type, then the source), however
   * many newer points of other types or sources there are. Two small indexed reads, not a scan.
   */
  private async newestOnOrBefore(securityId: string, type: PricePoint["type"], date: string): Promise<PricePoint[]> {
    const base = "c.securityId = @s AND c.docType = 'price' AND c.type = @t";
    const { resources: dates } = await this.container.items
      .query<string>(
        {
          // Ids are `date|type|source`, so within one type the id orders by date.
          query: `SELECT TOP 1 VALUE c.date FROM c WHERE ${base} AND c.date <= @d ORDER BY c.id DESC`,
          parameters: [
            { name: "@s", value: securityId },
            { name: "@t", value: type },
            { name: "@d", value: date },
          ],
        },
        { partitionKey: securityId },
      )
      .fetchAll();
    const newest = dates[0];
    if (newest === undefined) return [];
    const { resources } = await this.container.items
      .query<PriceDoc>(
        {
          query: `SELECT * FROM c WHERE ${base} AND c.date = @d`,
          parameters: [
            { name: "@s", value: securityId },
            { name: "@t", value: type },
            { name: "@d", value: newest },
          ],
        },
        { partitionKey: securityId },
      )
      .fetchAll();
    return resources.map((p) => ({
      date: p.date,
      type: p.type,
      source: p.source,
      price: p.price,
      currency: p.currency,
    }));
  }

  async list(securityId: string, filter: PriceFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Price>> {
    const where = ["c.securityId = @securityId", "c.docType = 'price'"];
    const parameters: SqlParameter[] = [{ name: "@securityId", value: securityId }];
    if (filter.from !== undefined) {
      where.push("c.date >= @from");
      parameters.push({ name: "@from", value: filter.from });
    }
    if (filter.to !== undefined) {
      where.push("c.date <= @to");
      parameters.push({ name: "@to", value: filter.to });
    }
    if (filter.type !== undefined) {
      where.push("c.type = @type");
      parameters.push({ name: "@type", value: filter.type });
    }
    const query = { where, parameters, sortField: "id", partitionKey: securityId };
    const page =
      asAt === undefined
        ? await pagedQuery<PriceDoc>(this.container, query, request)
        : await asAtPagedQuery(this.source, query, request, asAt);
    return { ...page, items: page.items.map((doc) => toPrice(doc as unknown as PriceDoc)) };
  }

  async history(securityId: string, key: PriceKey, request: PageRequest): Promise<HistoryPage<Price>> {
    const parameters: SqlParameter[] = [
      { name: "@s", value: securityId },
      { name: "@d", value: key.date },
      { name: "@t", value: key.type },
    ];
    if (key.source !== undefined) parameters.push({ name: "@src", value: key.source });
    const { resources } = await this.container.items
      .query<PriceDoc>(
        {
          query: `SELECT * FROM c WHERE c.securityId = @s AND c.docType = 'price' AND c.date = @d AND c.type = @t${key.source === undefined ? "" : " AND c.source = @src"}`,
          parameters,
        },
        { partitionKey: securityId },
      )
      .fetchAll();
    return historyEntries(
      this.source,
      resources.map((doc) => ({
        current: stripSystem(doc) as unknown as Record<string, unknown>,
        recordId: doc.id,
        partitionKey: securityId,
      })),
      request,
      (doc) => toPrice(doc as unknown as PriceDoc),
    );
  }

  /**
   * Folds written prices into each security's `latest` document. Two imports may touch one security
   * at once, so the write is conditional on the version read, and a lost race is merged again.
   */
  private async mergeLatest(
    written: readonly PriceDoc[],
    known?: ReadonlyMap<string, readonly PricePoint[]>,
  ): Promise<void> {
    const bySecurity = new Map<string, PriceDoc[]>();
    for (const doc of written) {
      const list = bySecurity.get(doc.securityId);
      if (list === undefined) bySecurity.set(doc.securityId, [doc]);
      else list.push(doc);
    }
    let pending = [...bySecurity.keys()];
    if (pending.length === 0) return;
    await retry(
      CONFLICTS,
      async (attempt) => {
        // First attempt: the versions the caller read just before, if it passed them; a stale one only costs a retry.
        const current =
          attempt === 1 && known !== undefined
            ? new Map(
                pending.flatMap((id) => {
                  const points = known.get(id);
                  const doc = points === undefined ? undefined : this.versions.get(points);
                  return doc === undefined ? [] : [[`${id}|latest`, doc] as const];
                }),
              )
            : await bulkRead<LatestDoc>(
                this.container,
                pending.map((id) => ({ id: "latest", partitionKey: id })),
                true,
              );
        const operations: OperationInput[] = [];
        const touched: string[] = [];
        for (const securityId of pending) {
          const before = current.get(`${securityId}|latest`);
          const newest = new Map<string, LatestDoc["points"][number]>();
          for (const p of before?.points ?? []) newest.set(`${p[1]}|${p[2]}`, p);
          let changed = before === undefined;
          for (const p of bySecurity.get(securityId) ?? []) {
            const key = `${p.type}|${p.source}`;
            const known = newest.get(key);
            if (
              known === undefined ||
              p.date > known[0] ||
              (p.date === known[0] && (p.price !== known[3] || p.currency !== known[4]))
            ) {
              newest.set(key, [p.date, p.type, p.source, p.price, p.currency]);
              changed = true;
            }
          }
          if (!changed) continue;
          const doc: LatestDoc = {
            id: "latest",
            securityId,
            docType: "price-latest",
            points: [...newest.values()].sort(),
          };
          touched.push(securityId);
          operations.push(
            before === undefined
              ? { operationType: BulkOperationType.Create, resourceBody: doc as unknown as JSONObject }
              : {
                  operationType: BulkOperationType.Replace,
                  id: "latest",
                  resourceBody: doc as unknown as JSONObject,
                  ifMatch: before._etag ?? "",
                },
          );
        }
        const results = await bulkWithRetry(this.container, operations);
        const lost: string[] = [];
        results.forEach((r, i) => {
          const securityId = touched[i];
          if (securityId === undefined) return;
          if (r.statusCode === 409 || r.statusCode === 412) lost.push(securityId);
          else if (r.statusCode < 200 || r.statusCode > 299)
            throw new Error(`latest prices write failed with ${r.statusCode}`);
        });
        pending = lost;
        return lost.length > 0 ? AGAIN : undefined;
      },
      () => stillContended(`the latest prices of ${pending.length} securities`),
    );
  }
}
