import type Decimal from "decimal.js";
import { PreciseDecimal, toDecimal } from "./money";

/** One FX observation: 1 unit of the base currency buys `rate` units of the quote currency. */
export interface FxPoint {
  date: string;
  rate: number;
}

/** FX history keyed `${base}${quote}` (e.g. "EURUSD"); each list sorted ascending by date. */
export type FxTable = ReadonlyMap<string, readonly FxPoint[]>;

export type FxMethod = "identity" | "direct" | "inverse" | "cross";

/** A rate that converts an amount in `from` into `to`, how it was found and the oldest date it rests on. */
export interface FxResolution {
  rate: Decimal;
  method: FxMethod;
  /** The currency a cross rate went through (cross only). */
  pivot?: string;
  rateDate: string | undefined;
}

/** The pivot currencies when none are configured (FX_PIVOT_CURRENCIES). */
export const DEFAULT_FX_PIVOTS: readonly string[] = ["USD", "EUR"];

/** The last element dated on or before `date` in a list sorted ascending by date (ties: the last one). */
export function latestOnOrBefore<T extends { date: string }>(points: readonly T[], date: string): T | undefined {
  let low = 0;
  let high = points.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const point = points[mid];
    if (point !== undefined && point.date <= date) low = mid + 1;
    else high = mid;
  }
  return points[low - 1];
}

// A leg is kept as a fraction so that a cross of two inverse legs costs one division, not three.
interface Leg {
  numerator: Decimal;
  denominator: Decimal;
  inverted: boolean;
  date: string;
}

function usablePoint(table: FxTable, pair: string, date: string): FxPoint | undefined {
  const point = latestOnOrBefore(table.get(pair) ?? [], date);
  // A zero, negative or non-finite rate cannot convert anything; treat the pair as unquoted.
  return point !== undefined && Number.isFinite(point.rate) && point.rate > 0 ? point : undefined;
}

function findLeg(from: string, to: string, date: string, table: FxTable): Leg | undefined {
  const one = new PreciseDecimal(1);
  // Direct wins whenever it exists, even if the inverse pair has a fresher point: the contract
  // orders the methods, and a predictable choice is easier to audit than a date race.
  const direct = usablePoint(table, `${from}${to}`, date);
  if (direct !== undefined)
    return { numerator: toDecimal(direct.rate), denominator: one, inverted: false, date: direct.date };
  const inverse = usablePoint(table, `${to}${from}`, date);
  if (inverse !== undefined)
    return { numerator: one, denominator: toDecimal(inverse.rate), inverted: true, date: inverse.date };
  return undefined;
}

/**
 * The rate converting `from` into `to` on `date`, from the latest points on or before it:
 * identity, else direct, else inverse, else a cross through the first of `pivots` for which both
 * legs exist (each leg direct or inverse). Undefined when no path exists. The order of `pivots` is
 * the only choice made, so the same table always gives the same path.
 */
export function resolveFx(
  from: string,
  to: string,
  date: string,
  table: FxTable,
  pivots: readonly string[] = DEFAULT_FX_PIVOTS,
): FxResolution | undefined {
  if (from === to) return { rate: new PreciseDecimal(1), method: "identity", rateDate: undefined };

  const single = findLeg(from, to, date, table);
  if (single !== undefined) {
    return {
      rate: single.numerator.div(single.denominator),
      method: single.inverted ? "inverse" : "direct",
      rateDate: single.date,
    };
  }
  for (const pivot of pivots) {
    // A pivot that is one of the two currencies is the direct or inverse pair, already tried.
    if (pivot === from || pivot === to) continue;
    const first = findLeg(from, pivot, date, table);
    const second = first === undefined ? undefined : findLeg(pivot, to, date, table);
    if (first === undefined || second === undefined) continue;
    return {
      rate: first.numerator.times(second.numerator).div(first.denominator.times(second.denominator)),
      method: "cross",
      pivot,
      // A cross rate is only as fresh as its oldest leg.
      rateDate: first.date < second.date ? first.date : second.date,
    };
  }
  return undefined;
}

/**
 * The currency pairs that can convert `currencies` into `base`: each direct and inverse, and both
 * legs (either way round) through each pivot. A rate table holding these pairs values them all.
 */
export function fxPairsFor(currencies: Iterable<string>, base: string, pivots: readonly string[]): string[] {
  const pairs = new Set<string>();
  const both = (a: string, b: string): void => {
    if (a === b) return;
    pairs.add(`${a}${b}`);
    pairs.add(`${b}${a}`);
  };
  for (const pivot of pivots) both(pivot, base);
  for (const c of currencies) {
    both(c, base);
    for (const pivot of pivots) both(c, pivot);
  }
  return [...pairs];
}
