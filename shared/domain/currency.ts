import { code, codes } from "currency-codes";
import { z } from "zod";

const iso4217 = new Set(codes());

/** An active ISO 4217 currency code, upper case. */
export const currencyCode = z
  .string()
  .refine((v) => iso4217.has(v), { message: "must be an ISO 4217 currency code, e.g. EUR" })
  .meta({ description: "ISO 4217 currency code", example: "EUR" });

export const isCurrencyCode = (value: string): boolean => iso4217.has(value);

/**
 * The ISO 4217 minor units of a currency: how many decimal places its amounts have (JPY 0, EUR 2,
 * KWD 3). A code the table does not know keeps 2, the common case, rather than failing a valuation.
 */
export function minorUnits(currency: string): number {
  const digits = code(currency)?.digits;
  return typeof digits === "number" && Number.isInteger(digits) && digits >= 0 ? digits : 2;
}
