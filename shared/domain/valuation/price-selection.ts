export type PriceType = "close" | "mid" | "bid" | "ask" | "nav";

/** One price of a security: `price` per unit in `currency`, of kind `type`, as given by `source`. */
export interface PricePoint {
  date: string;
  type: PriceType;
  price: number;
  currency: string;
  source: string;
}

// Plain code-unit comparison rather than localeCompare: the result must not depend on the
// runtime's locale.
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The price to value a security with on `date`: among points of a preferred type dated on or
 * before `date`, the most recent date wins, and only within that date does the order of
 * `preference` decide. Freshness wins over type on purpose: a close from last month is a worse
 * estimate of today's value than today's mid. Remaining ties go to the source that sorts first
 * (then currency and price), so the choice never depends on the order of `points`.
 */
export function selectPrice(
  points: readonly PricePoint[],
  date: string,
  preference: readonly PriceType[],
): PricePoint | undefined {
  let best: PricePoint | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (const point of points) {
    const rank = preference.indexOf(point.type);
    if (rank < 0 || point.date > date) continue;
    if (best === undefined || isBetter(point, rank, best, bestRank)) {
      best = point;
      bestRank = rank;
    }
  }
  return best;
}

function isBetter(point: PricePoint, rank: number, best: PricePoint, bestRank: number): boolean {
  if (point.date !== best.date) return point.date > best.date;
  if (rank !== bestRank) return rank < bestRank;
  const order =
    compareText(point.source, best.source) || compareText(point.currency, best.currency) || point.price - best.price;
  return order < 0;
}
