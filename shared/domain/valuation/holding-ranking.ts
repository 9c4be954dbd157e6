import type Decimal from "decimal.js";
import { roundTo, toDecimal, toNumber } from "./money";

/** The fields holdings are ordered by. */
export interface Rankable {
  securityId: string;
  marketValue: number | null;
  via?: readonly string[];
}

// Rows with no path sort before looked-through ones of the same value and security.
const VIA_SEPARATOR = ">";

/** Market value descending (unvalued rows last), then security id, then the look-through path. */
export function compareHoldings(a: Rankable, b: Rankable): number {
  if (a.marketValue !== b.marketValue) {
    if (a.marketValue === null) return 1;
    if (b.marketValue === null) return -1;
    return b.marketValue - a.marketValue;
  }
  if (a.securityId !== b.securityId) return a.securityId < b.securityId ? -1 : 1;
  const pathA = (a.via ?? []).join(VIA_SEPARATOR);
  const pathB = (b.via ?? []).join(VIA_SEPARATOR);
  return pathA < pathB ? -1 : pathA > pathB ? 1 : 0;
}

/** A holding's share of the total to 8 dp; null when it has no value or the total is zero. */
export function weightOf(marketValue: number | null, total: Decimal): number | null {
  if (marketValue === null || total.isZero()) return null;
  return toNumber(roundTo(toDecimal(marketValue).div(total), 8));
}

/** The exact sum of the rows' market values (each in the base currency's minor units), skipping unvalued rows. */
export function totalOf(rows: readonly { marketValue: number | null }[]): Decimal {
  return rows.reduce(
    (sum, row) => (row.marketValue === null ? sum : sum.plus(toDecimal(row.marketValue))),
    toDecimal(0),
  );
}
