import { priceId, type Price } from "../../../domain/price";
import type { DataQualityCandidate } from "../../../domain/data-quality-exception";
import { priceJump, priceReach, type PricePoint } from "../../../domain/valuation/index";
import type { Clock } from "../../../ports/clock";
import type { PositionRepository, PriceRepository } from "../../../ports/investment-repositories";
import { commitInBatches, type PreparedImport } from "./import-types";
import type { ReferenceResolver } from "./reference-resolver";
import { flagDuplicates, type Problems, type RecordOf } from "./validate-payload";

export interface PriceImportDeps {
  prices: PriceRepository;
  positions: PositionRepository;
  references: ReferenceResolver;
  clock: Clock;
  jumpThreshold: number;
}

export async function preparePrices(
  records: readonly (RecordOf<"prices"> | undefined)[],
  problems: Problems,
  deps: PriceImportDeps,
): Promise<PreparedImport> {
  await deps.references.loadIsins(records.map((r) => r?.isin));
  const now = deps.clock.now().toISOString();
  const securityIds = records.map((record, i) =>
    record === undefined ? undefined : deps.references.securityIdForIsin(record.isin, `prices[${i}]`, problems),
  );
  // A record without a currency keeps the stored price's (read only for such records).
  const stored = await deps.prices.getMany(
    records.flatMap((r, i) => {
      const securityId = securityIds[i];
      return r === undefined || r.currency !== undefined || securityId === undefined
        ? []
        : [{ securityId, id: priceId(r) }];
    }),
  );
  const prices: Price[] = [];
  records.forEach((record, i) => {
    const securityId = securityIds[i];
    if (record === undefined || securityId === undefined) return;
    const currency = record.currency ?? stored.get(`${securityId}|${priceId(record)}`)?.currency;
    if (currency === undefined) return void problems.add(`prices[${i}].currency`, "is required for a new price");
    prices.push({ ...record, currency, securityId, updatedAt: now });
  });
  flagDuplicates(
    records,
    (r) => `${r.isin}|${priceId(r)}`,
    (i) => `prices[${i}]`,
    problems,
  );
  problems.throwIfAny();
  return {
    received: records.length,
    async commit(_jobId, progress, stale) {
      const latest = await deps.prices.latest(prices.map((p) => p.securityId));
      // The snapshots holding a security on a date one of its new prices can be chosen on (from the
      // price's date until a newer stored price of its type takes over): marked before the prices are
      // written (if none of them changes, the import takes back the markers it created). A backfill
      // of history older than what is stored marks nothing it cannot change.
      if (prices.length > 0) await stale.mark(await deps.positions.snapshotsHolding(priceReach(prices, latest)));
      const counts = await commitInBatches(prices, progress, (batch) => deps.prices.save(batch, latest));
      return { counts, events: [], dataQuality: findPriceJumps(prices, latest, deps.jumpThreshold) };
    },
  };
}

/**
 * Day-on-day moves beyond the threshold, against the previous price of the same type: the newest
 * stored one (when it is older than the new price) or an earlier price of this payload. A backfilled
 * price older than what is stored is compared with the payload's own earlier prices.
 */
function findPriceJumps(
  prices: readonly Price[],
  latest: ReadonlyMap<string, readonly PricePoint[]>,
  threshold: number,
): DataQualityCandidate[] {
  const series = new Map<string, PricePoint[]>();
  const add = (securityId: string, p: PricePoint): void => {
    const key = `${securityId}|${p.type}`;
    const list = series.get(key);
    if (list === undefined) series.set(key, [p]);
    else list.push(p);
  };
  for (const securityId of new Set(prices.map((p) => p.securityId)))
    for (const p of latest.get(securityId) ?? []) add(securityId, p);
  for (const p of prices) add(p.securityId, p);
  for (const list of series.values())
    list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.source < b.source ? -1 : 1));
  const out: DataQualityCandidate[] = [];
  for (const price of prices) {
    const list = series.get(`${price.securityId}|${price.type}`) ?? [];
    // The last point strictly before the price's date (binary search).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid]?.date ?? "") < price.date) lo = mid + 1;
      else hi = mid;
    }
    const previous = lo > 0 ? list[lo - 1] : undefined;
    // The exact (decimal) check only where a float estimate is not clearly inside the threshold.
    if (
      previous === undefined ||
      (previous.price > 0 && Math.abs(price.price - previous.price) / previous.price < threshold * 0.999)
    )
      continue;
    const jump = priceJump(previous, price, threshold);
    if (jump === undefined || previous === undefined) continue;
    out.push({
      key: `PRICE_JUMP|${price.securityId}|${price.type}|${price.date}|${price.source}`,
      type: "PRICE_JUMP",
      severity: "warning",
      message: `${price.type} price of ${price.isin ?? price.securityId} moved ${(jump.change * 100).toFixed(2)}% from ${previous.price} (${previous.date}) to ${price.price} (${price.date})`,
      entity: { type: "price", id: `${price.securityId}|${priceId(price)}` },
    });
  }
  return out;
}
