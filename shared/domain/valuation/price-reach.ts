import type { PricePoint } from "./price-selection";

/** The valuation dates on which a new price can be the one chosen: from its own date, until (excluded) `until` if set. */
export interface PriceReach {
  securityId: string;
  from: string;
  until?: string;
}

/**
 * Where new prices can change a valuation. Valuation picks, among the preferred types, the point with
 * the newest date on or before the valuation date (selectPrice), so a new point of type T dated d is
 * never chosen on a date D when a stored point of the same type lies in (d, D]: for every D on or after
 * the newest stored date of type T (when that is after d) it is out of reach. Before that date it is
 * kept in reach, as a stored point in between is not known here. Prices are never deleted, so a point
 * the `stored` summary names stays there. One reach per security: its earliest start and latest end.
 */
export function priceReach(
  prices: readonly (PricePoint & { securityId: string })[],
  stored: ReadonlyMap<string, readonly PricePoint[]>,
): PriceReach[] {
  const reach = new Map<string, { from: string; until: string | undefined }>();
  for (const price of prices) {
    let newest: string | undefined;
    for (const p of stored.get(price.securityId) ?? [])
      if (p.type === price.type && (newest === undefined || p.date > newest)) newest = p.date;
    const until = newest !== undefined && newest > price.date ? newest : undefined;
    const known = reach.get(price.securityId);
    if (known === undefined) reach.set(price.securityId, { from: price.date, until });
    else
      reach.set(price.securityId, {
        from: price.date < known.from ? price.date : known.from,
        until: known.until === undefined || until === undefined ? undefined : until > known.until ? until : known.until,
      });
  }
  return [...reach.entries()].map(([securityId, r]) =>
    r.until === undefined ? { securityId, from: r.from } : { securityId, from: r.from, until: r.until },
  );
}
