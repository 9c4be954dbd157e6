// The one sign convention of transaction amounts: magnitudes, gross = quantity × price, net = gross ± fees.
import { MAX_AMOUNT } from "./bounds";
import { minorUnits } from "./currency";
import { CASH_ONLY, type TransactionType } from "./transaction-type";
import { roundMoney, toDecimal, toNumber } from "./valuation/money";

/** A buy or a sell: the types whose amounts derive from quantity × price. */
export const isTrade = (type: TransactionType): boolean => type === "buy" || type === "sell";

/** quantity × price, exact, rounded half away from zero to the currency's minor units. */
export function grossOf(quantity: number, price: number, currency: string): number {
  return toNumber(roundMoney(toDecimal(quantity).times(toDecimal(price)), currency));
}

/** A buy's or sell's settlement amount: gross + fees (buy) or gross − fees (sell), in minor units. */
export function netOf(type: TransactionType, gross: number, fees: number | null, currency: string): number {
  const g = toDecimal(gross);
  const f = toDecimal(fees ?? 0);
  return toNumber(roundMoney(type === "buy" ? g.plus(f) : g.minus(f), currency));
}

/** What the amount rules read of a transaction; undefined: not known (a field a record does not carry). */
export interface AmountView {
  type?: TransactionType | undefined;
  hasSecurity?: boolean | undefined;
  tradeDate?: string | undefined;
  settlementDate?: string | null | undefined;
  quantity?: number | null | undefined;
  grossAmount?: number | null | undefined;
  fees?: number | null | undefined;
  netAmount?: number | undefined;
  currency?: string | undefined;
}

/**
 * The rules between a transaction's fields, each applied only when every field it reads is known:
 * to a record as sent (its own fields), and to the merged transaction (all of them). `field` is the
 * field to name.
 */
export function transactionProblems(t: AmountView): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const { type } = t;
  if (type !== undefined && !CASH_ONLY.includes(type) && t.hasSecurity === false) {
    out.push({ field: "securityId", message: `securityId or isin is required for a ${type}` });
  }
  if (type !== undefined && isTrade(type) && t.quantity !== undefined && (t.quantity === null || t.quantity <= 0)) {
    out.push({ field: "quantity", message: `a ${type} needs a positive quantity` });
  }
  if (t.settlementDate != null && t.tradeDate !== undefined && t.settlementDate < t.tradeDate) {
    out.push({ field: "settlementDate", message: "must not be before tradeDate" });
  }
  const { grossAmount: gross, fees, netAmount: net, currency } = t;
  if (gross != null && gross > MAX_AMOUNT) {
    out.push({
      field: "grossAmount",
      message: `the derived grossAmount ${gross} (quantity × price) is beyond ${MAX_AMOUNT.toExponential()}; check quantity and price`,
    });
    return out;
  }
  if (
    type !== undefined &&
    isTrade(type) &&
    net !== undefined &&
    gross != null &&
    fees !== undefined &&
    currency !== undefined &&
    gross <= MAX_AMOUNT &&
    (fees ?? 0) <= MAX_AMOUNT
  ) {
    const expected = netOf(type, gross, fees, currency);
    const unit = toDecimal(10).pow(-minorUnits(currency));
    if (toDecimal(net).minus(toDecimal(expected)).abs().greaterThan(unit)) {
      const sign = type === "buy" ? "+" : "−";
      out.push({
        field: "netAmount",
        message: `${net} contradicts grossAmount ${sign} fees = ${gross} ${sign} ${fees ?? 0} = ${expected}: a ${type}'s netAmount is grossAmount ${sign} fees (to within one minor unit of ${currency}); amounts are magnitudes`,
      });
    }
  }
  // Only a sell's derived netAmount can be negative, and only with fees near its gross amount.
  if (
    net === undefined &&
    type === "sell" &&
    gross != null &&
    fees != null &&
    fees >= gross * 0.999 &&
    currency !== undefined
  ) {
    const derived = netOf(type, gross, fees, currency);
    if (derived < 0)
      out.push({
        field: "netAmount",
        message: `the fees (${fees ?? 0}) exceed the grossAmount (${gross}), so this ${type}'s netAmount would be negative; amounts are magnitudes, so book the excess as a fee transaction`,
      });
  }
  return out;
}

/**
 * The amounts of a newly imported buy or sell as the bench's raw writer stores them: grossAmount
 * quantity × price unless sent, netAmount gross ± fees unless sent. Undefined when netAmount is absent
 * and cannot be derived.
 */
export function deriveAmounts(t: {
  type: TransactionType;
  quantity?: number | null | undefined;
  price?: number | null | undefined;
  grossAmount?: number | null | undefined;
  fees?: number | null | undefined;
  netAmount?: number | undefined;
  currency: string;
}): { grossAmount: number | null; netAmount: number } | undefined {
  const gross =
    t.grossAmount ??
    (isTrade(t.type) && t.quantity != null && t.price != null ? grossOf(t.quantity, t.price, t.currency) : null);
  if (t.netAmount !== undefined) return { grossAmount: gross, netAmount: t.netAmount };
  if (!isTrade(t.type) || gross === null) return undefined;
  return { grossAmount: gross, netAmount: netOf(t.type, gross, t.fees ?? null, t.currency) };
}
