import Decimal from "decimal.js";
import { minorUnits } from "../currency";

/**
 * The Decimal constructor of the valuation domain: 34 significant digits (as IEEE 754 decimal128),
 * so quantity × price × FX rate keeps every digit a real amount has, without changing the global
 * Decimal configuration that other code may rely on.
 */
export const PreciseDecimal = Decimal.clone({ precision: 34, rounding: Decimal.ROUND_HALF_UP });

// Allocation works on whole minor units and must never round, so it gets far more digits than any
// amount × weight product can have.
const ExactDecimal = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_DOWN });

/** Exact decimal value of a JS number as it prints: 0.1 becomes 0.1, not 0.1000000000000000055… */
export function toDecimal(n: number): Decimal {
  // A NaN or Infinity here is a bug upstream; carrying it on would poison every total it touches.
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return new PreciseDecimal(String(n));
}

/** Rounds half away from zero (decimal.js ROUND_HALF_UP): 0.125 → 0.13, -0.125 → -0.13. */
export function roundTo(d: Decimal, places: number): Decimal {
  return d.toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
}

/** Money is kept to its currency's ISO 4217 minor units (JPY 0, EUR 2, KWD 3), rounding half away from zero. */
export function roundMoney(d: Decimal, currency: string): Decimal {
  return roundTo(d, minorUnits(currency));
}

/** The nearest JS number; -0 becomes 0 so that results compare and serialise as users expect. */
export function toNumber(d: Decimal): number {
  return d.isZero() ? 0 : d.toNumber();
}

interface Share {
  index: number;
  cents: Decimal;
  remainder: Decimal;
}

/**
 * Splits an amount with `places` decimal places (its currency's minor units; 2 by default) into
 * parts with as many places, proportional to `weights`, that sum exactly to `total`
 * (largest-remainder method; ties go to the earlier weight). Zero weights get zero. When every
 * weight is zero the amount is split evenly. Throws RangeError when `total` has more than `places`
 * decimal places, or when a non-zero total meets no weights or weights that cancel out to zero.
 */
export function allocate(total: Decimal, weights: readonly Decimal[], places = 2): Decimal[] {
  if (!Number.isInteger(places) || places < 0)
    throw new RangeError(`allocate needs a whole number of places, got ${places}`);
  const scale = new ExactDecimal(10).pow(places);
  const units = new ExactDecimal(total).times(scale);
  if (!units.isFinite() || !units.isInteger()) {
    throw new RangeError(`allocate needs an amount with at most ${places} decimal places, got ${total.toString()}`);
  }
  if (weights.some((w) => !w.isFinite())) throw new RangeError("allocate needs finite weights");
  if (units.isZero()) return weights.map(() => new PreciseDecimal(0));
  if (weights.length === 0) throw new RangeError("cannot allocate a non-zero amount over no weights");

  let ws = weights.map((w) => new ExactDecimal(w));
  let sum = ws.reduce((acc, w) => acc.plus(w), new ExactDecimal(0));
  if (sum.isZero()) {
    if (!ws.every((w) => w.isZero())) throw new RangeError("weights cancel out to zero: no proportional split exists");
    ws = ws.map(() => new ExactDecimal(1));
    sum = new ExactDecimal(ws.length);
  }
  // With the amount and the divisor both positive, floor division leaves remainders in [0, sum)
  // even for negative weights, and allocate(-x) is exactly the negation of allocate(x).
  const negative = units.isNegative();
  const amount = units.abs();
  if (sum.isNegative()) {
    ws = ws.map((w) => w.neg());
    sum = sum.neg();
  }

  const shares: Share[] = ws.map((w, index) => {
    const numerator = amount.times(w);
    let cents = numerator.divToInt(sum); // truncates toward zero
    let remainder = numerator.minus(cents.times(sum));
    if (remainder.isNegative()) {
      cents = cents.minus(1);
      remainder = remainder.plus(sum);
    }
    return { index, cents, remainder };
  });

  // The remainders add up to leftover × sum, each below sum, so 0 ≤ leftover < shares.length
  // and only shares with a non-zero remainder can receive an extra minor unit.
  const assigned = shares.reduce((acc, s) => acc.plus(s.cents), new ExactDecimal(0));
  const leftover = amount.minus(assigned).toNumber();
  const ranked = [...shares].sort((a, b) => b.remainder.comparedTo(a.remainder) || a.index - b.index);
  const extra = new Set(ranked.slice(0, leftover).map((s) => s.index));

  return shares.map((s) => {
    const cents = extra.has(s.index) ? s.cents.plus(1) : s.cents;
    const part = new PreciseDecimal(cents.div(scale));
    return negative && !part.isZero() ? part.neg() : part;
  });
}
