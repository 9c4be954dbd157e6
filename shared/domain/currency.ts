import { codes } from "currency-codes";
import { z } from "zod";

const iso4217 = new Set(codes());

/** An active ISO 4217 currency code, upper case. */
export const currencyCode = z
  .string()
  .refine((v) => iso4217.has(v), { message: "must be an ISO 4217 currency code, e.g. EUR" })
  .meta({ description: "ISO 4217 currency code", example: "EUR" });

export const isCurrencyCode = (value: string): boolean => iso4217.has(value);
