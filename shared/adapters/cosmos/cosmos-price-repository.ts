import { BulkOperationType, type Container, type JSONObject, type OperationInput, type SqlParameter } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { priceId, type Price } from "../../domain/price";
import type { PricePoint } from "../../domain/valuation";
import type { PriceFilter, PriceRepository, WriteCounts } from "../../ports/investment-repositories";
import { bulkRead, bulkUpsert, bulkWithRetry } from "./bulk";
import { pagedQuery } from "./paged-query";

interface PriceDoc extends Price {
  id: string;
  docType: "price";
}

/** Every price point of one security, compact, so valuation reads one document per security. */
interface HistoryDoc {
  id: "history";
  securityId: string;
  docType: "price-history";
  /** [date, type, source, price, currency], sorted by date, type, source. */
  points: [string, string, string, number, string][];
}

const HISTORY_CAP = 20_000;

/** Prices in the `prices` container (partition /securityId, id `date|type|source`) and one history document per security. */
export class CosmosPriceRepository implements PriceRepository {
  constructor(private readonly container: Container) {}

  async save(prices: readonly Price[], history: ReadonlyMap<string, readonly PricePoint[]>): Promise<WriteCounts> {
    // The history document holds every stored point of a security (up to its cap), so it decides
    // created / updated / unchanged without a read per price. Points older than a capped history are read.
    const known = new Map<string, PricePoint>();
    const oldest = new Map<string, string>();
    for (const [securityId, points] of history) {
      for (const p of points) known.set(`${securityId}|${priceId(p)}`, p);
      if (points.length >= HISTORY_CAP && points[0] !== undefined) oldest.set(securityId, points[0].date);
    }
    const uncovered = prices.filter((p) => { const o = oldest.get(p.securityId); return o !== undefined && p.date < o; });
    const stored = await bulkRead<PriceDoc>(this.container, uncovered.map((p) => ({ id: priceId(p), partitionKey: p.securityId })));
    for (const doc of stored.values()) known.set(`${doc.securityId}|${doc.id}`, doc);
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const writes: PriceDoc[] = [];
    for (const price of prices) {
      const before = known.get(`${price.securityId}|${priceId(price)}`);
      if (before === undefined) counts.created++;
      else if (before.price === price.price && before.currency === price.currency) {
        counts.unchanged++;
        continue;
      } else counts.updated++;
      writes.push({ ...price, id: priceId(price), docType: "price" });
    }
    // Prices first, then their history: the history never claims a price that is not stored.
    await bulkUpsert(this.container, writes as unknown as JSONObject[]);
    await this.updateHistories(writes);
    return counts;
  }

  async history(securityIds: readonly string[]): Promise<Map<string, PricePoint[]>> {
    const unique = [...new Set(securityIds)];
    const docs = await bulkRead<HistoryDoc>(this.container, unique.map((id) => ({ id: "history", partitionKey: id })));
    const out = new Map<string, PricePoint[]>();
    for (const doc of docs.values()) {
      out.set(
        doc.securityId,
        doc.points.map(([date, type, source, price, currency]) => ({ date, type: type as PricePoint["type"], source, price, currency })),
      );
    }
    return out;
  }

  async list(securityId: string, filter: PriceFilter, request: PageRequest): Promise<CursorPage<Price>> {
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
    const page = await pagedQuery<PriceDoc>(this.container, { where, parameters, sortField: "id" }, request);
    return { ...page, items: page.items.map(({ id: _id, docType: _d, ...price }) => price) };
  }

  /**
   * Merges written prices into each security's history document. Two imports may touch one security at
   * once, so the write is conditional on the version read (create if absent, replace if unchanged) and
   * a lost race is merged again.
   */
  private async updateHistories(written: readonly PriceDoc[]): Promise<void> {
    const bySecurity = new Map<string, PriceDoc[]>();
    for (const doc of written) {
      const list = bySecurity.get(doc.securityId);
      if (list === undefined) bySecurity.set(doc.securityId, [doc]);
      else list.push(doc);
    }
    let pending = [...bySecurity.keys()];
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= 10) throw new Error(`price history of ${pending.length} securities kept changing under contention`);
      const current = await bulkRead<HistoryDoc & { _etag?: string }>(this.container, pending.map((id) => ({ id: "history", partitionKey: id })), true);
      const operations: OperationInput[] = pending.map((securityId) => {
        const before = current.get(`${securityId}|history`);
        const points = new Map<string, HistoryDoc["points"][number]>();
        for (const p of before?.points ?? []) points.set(`${p[0]}|${p[1]}|${p[2]}`, p);
        for (const p of bySecurity.get(securityId) ?? []) points.set(priceId(p), [p.date, p.type, p.source, p.price, p.currency]);
        const sorted = [...points.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
        const doc: HistoryDoc = { id: "history", securityId, docType: "price-history", points: sorted.slice(-HISTORY_CAP) };
        return before === undefined
          ? { operationType: BulkOperationType.Create, resourceBody: doc as unknown as JSONObject }
          : { operationType: BulkOperationType.Replace, id: "history", resourceBody: doc as unknown as JSONObject, ifMatch: before._etag ?? "" };
      });
      const results = await bulkWithRetry(this.container, operations);
      const retry: string[] = [];
      results.forEach((r, i) => {
        const securityId = pending[i];
        if (securityId === undefined) return;
        if (r.statusCode === 409 || r.statusCode === 412) retry.push(securityId);
        else if (r.statusCode < 200 || r.statusCode > 299) throw new Error(`price history write failed with ${r.statusCode}`);
      });
      pending = retry;
    }
  }
}
