import type { Container, JSONObject, SqlParameter } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { priceId, type Price } from "../../domain/price";
import type { PricePoint } from "../../domain/valuation";
import type { PriceFilter, PriceRepository, WriteCounts } from "../../ports/investment-repositories";
import { bulkRead, bulkUpsert, refKey, sameContent } from "./bulk";
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

  async save(prices: readonly Price[]): Promise<WriteCounts> {
    const refs = prices.map((p) => ({ id: priceId(p), partitionKey: p.securityId }));
    const existing = await bulkRead<PriceDoc>(this.container, refs);
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const writes: PriceDoc[] = [];
    prices.forEach((price, i) => {
      const ref = refs[i];
      if (ref === undefined) return;
      const before = existing.get(refKey(ref));
      const doc: PriceDoc = { ...price, id: ref.id, docType: "price" };
      if (before === undefined) counts.created++;
      else if (sameContent(before, doc)) return void counts.unchanged++;
      else counts.updated++;
      writes.push(doc);
    });
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

  /** Merges written prices into each security's history document (read, merge, write). */
  private async updateHistories(written: readonly PriceDoc[]): Promise<void> {
    if (written.length === 0) return;
    const bySecurity = new Map<string, PriceDoc[]>();
    for (const doc of written) bySecurity.set(doc.securityId, [...(bySecurity.get(doc.securityId) ?? []), doc]);
    const histories = await bulkRead<HistoryDoc>(this.container, [...bySecurity.keys()].map((id) => ({ id: "history", partitionKey: id })));
    const docs: HistoryDoc[] = [];
    for (const [securityId, prices] of bySecurity) {
      const current = histories.get(refKey({ id: "history", partitionKey: securityId }));
      const points = new Map<string, HistoryDoc["points"][number]>();
      for (const p of current?.points ?? []) points.set(`${p[0]}|${p[1]}|${p[2]}`, p);
      for (const p of prices) points.set(priceId(p), [p.date, p.type, p.source, p.price, p.currency]);
      const sorted = [...points.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
      docs.push({ id: "history", securityId, docType: "price-history", points: sorted.slice(-HISTORY_CAP) });
    }
    await bulkUpsert(this.container, docs as unknown as JSONObject[]);
  }
}
