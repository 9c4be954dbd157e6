import { roundTo, toDecimal, toNumber } from "./money";
import type { PricePoint } from "./price-selection";

/**
 * The signed relative move from `previous` to `next` when its size is strictly beyond
 * `threshold` (0.25 = 25%), rounded to 6 dp; undefined when there is no comparable previous
 * price or the move is within the threshold. Prices are comparable only with the same type and
 * currency (a bid against a close, or USD against GBP, is not a market move) and a strictly
 * earlier date.
 */
export function priceJump(
  previous: PricePoint | undefined,
  next: PricePoint,
  threshold: number,
): { change: number } | undefined {
  if (previous === undefined) return undefined;
  if (previous.type !== next.type || previous.currency !== next.currency) return undefined;
  if (!(previous.date < next.date)) return undefined;
  // A relative move from zero or from a negative price has no meaningful size.
  if (!(previous.price > 0)) return undefined;

  const before = toDecimal(previous.price);
  const change = toDecimal(next.price).minus(before).div(before);
  // Compare before rounding, so a move a hair over the threshold is not rounded back onto it.
  if (!change.abs().greaterThan(toDecimal(threshold))) return undefined;
  return { change: toNumber(roundTo(change, 6)) };
}
