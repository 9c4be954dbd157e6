import type { Container, JSONObject } from "@azure/cosmos";
import { mapConcurrent } from "../../domain/concurrency";
import { fxRateId, type FxRate } from "../../domain/fx-rate";
import type { FxPoint, FxTable } from "../../domain/valuation";
import type { FxRateRepository, WriteCounts } from "../../ports/investment-repositories";
import { bulkRead, bulkUpsert, refKey, sameContent } from "./bulk";

interface FxDoc extends FxRate {
  id: string;
  docType: "fx";
}

/** FX rates in the `fxRates` container (partition /pair, id `date|source`). */
export class CosmosFxRateRepository implements FxRateRepository {
  constructor(private readonly container: Container) {}

  async save(rates: readonly FxRate[]): Promise<WriteCounts> {
    const refs = rates.map((r) => ({ id: fxRateId(r), partitionKey: r.pair }));
    const existing = await bulkRead<FxDoc>(this.container, refs);
    const counts: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
    const writes: FxDoc[] = [];
    rates.forEach((rate, i) => {
      const ref = refs[i];
      if (ref === undefined) return;
      const before = existing.get(refKey(ref));
      const doc: FxDoc = { ...rate, id: ref.id, docType: "fx" };
      if (before === undefined) counts.created++;
      else if (sameContent(before, doc)) return void counts.unchanged++;
      else counts.updated++;
      writes.push(doc);
    });
    await bulkUpsert(this.container, writes as unknown as JSONObject[]);
    return counts;
  }

  async latest(pairs: readonly string[], date: string): Promise<FxTable> {
    const table = new Map<string, FxPoint[]>();
    await mapConcurrent([...new Set(pairs)], 16, async (pair) => {
      // Several sources may quote the same date: the one whose name sorts last wins, deterministically.
      const { resources } = await this.container.items
        .query<FxDoc>(
          {
            query:
              "SELECT TOP 1 * FROM c WHERE c.pair = @pair AND c.docType = 'fx' AND c.date <= @date ORDER BY c.id DESC",
            parameters: [
              { name: "@pair", value: pair },
              { name: "@date", value: date },
            ],
          },
          { partitionKey: pair },
        )
        .fetchAll();
      const top = resources[0];
      if (top !== undefined) table.set(pair, [{ date: top.date, rate: top.rate }]);
    });
    return table;
  }
}
