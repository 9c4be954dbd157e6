import { priceId, type Price } from "../../domain/price";
import { priceJump } from "../../domain/valuation";
import type { Clock } from "../../ports/clock";
import type { PositionRepository, PriceRepository } from "../../ports/investment-repositories";
import type { PreparedImport } from "./import-types";
import type { ReferenceResolver } from "./references";
import { flagDuplicates, parseRecords, type Problems } from "./validate-payload";

export interface PriceImportDeps {
  prices: PriceRepository;
  positions: PositionRepository;
  references: ReferenceResolver;
  clock: Clock;
  jumpThreshold: number;
}

export async function preparePrices(body: unknown, problems: Problems, deps: PriceImportDeps): Promise<PreparedImport> {
  const records = parseRecords("prices", body, problems);
  await deps.references.loadSecurities(records.map((r) => (r === undefined ? undefined : { isin: r.isin })));
  const now = deps.clock.now().toISOString();
  const prices: Price[] = [];
  records.forEach((record, i) => {
    if (record === undefined) return;
    const security = deps.references.security({ isin: record.isin }, `prices[${i}]`, problems);
    if (security !== undefined) prices.push({ ...record, securityId: security.id, updatedAt: now });
  });
  flagDuplicates(records, (r) => `${r.isin}|${priceId(r)}`, (i) => `prices[${i}]`, problems);
  problems.throwIfAny();
  return {
    received: records.length,
    async commit() {
      const history = await deps.prices.history(prices.map((p) => p.securityId));
      const counts = await deps.prices.save(prices);
      const exceptions = prices.flatMap((price) => {
        const earlier = (history.get(price.securityId) ?? []).filter((p) => p.type === price.type && p.date < price.date);
        const previous = earlier.reduce<(typeof earlier)[number] | undefined>((best, p) => (best === undefined || p.date > best.date ? p : best), undefined);
        const jump = priceJump(previous, price, deps.jumpThreshold);
        if (jump === undefined || previous === undefined) return [];
        return [
          {
            key: `PRICE_JUMP|${price.securityId}|${price.type}|${price.date}|${price.source}`,
            type: "PRICE_JUMP" as const,
            severity: "warning" as const,
            message: `${price.type} price of ${price.isin} moved ${(jump.change * 100).toFixed(2)}% from ${previous.price} (${previous.date}) to ${price.price} (${price.date})`,
            entity: { type: "price", id: `${price.securityId}|${priceId(price)}` },
          },
        ];
      });
      return {
        counts,
        events: [],
        exceptions,
        affected: async () => {
          if (counts.created + counts.updated === 0 || prices.length === 0) return [];
          const from = prices.reduce((min, p) => (p.date < min ? p.date : min), prices[0]?.date ?? "");
          return deps.positions.snapshotsHolding(prices.map((p) => p.securityId), from);
        },
      };
    },
  };
}
