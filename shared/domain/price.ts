import { z } from "zod";
import { priceNumber } from "./bounds";
import { currencyCode } from "./currency";
import { isoDate } from "./dates";
import { isinSchema } from "./isin";

export const priceTypeSchema = z.enum(["close", "mid", "bid", "ask", "nav"]);
export type PriceType = z.infer<typeof priceTypeSchema>;

/**
 * The spec's price record, as accepted by `POST /api/v1/import/prices`: keyed by isin, date, type and
 * source. A record for a stored price may leave out its currency (the stored one is kept).
 */
export const priceImportSchema = z
  .strictObject({
    isin: isinSchema,
    date: isoDate,
    price: priceNumber,
    currency: currencyCode
      .optional()
      .meta({ description: "ISO 4217 currency code; required when the record creates the price, kept when absent" }),
    type: priceTypeSchema,
    source: z.string().trim().min(1).max(100),
  })
  .meta({ id: "PriceImport" });
export type PriceImport = z.infer<typeof priceImportSchema>;

export const priceSchema = z
  .object({
    securityId: z.string(),
    isin: z.string().nullable(),
    date: z.iso.date(),
    price: z.number(),
    currency: z.string(),
    type: priceTypeSchema,
    source: z.string(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Price" });
export type Price = z.infer<typeof priceSchema>;

/** Natural key: one price per security, date, type and source. */
export const priceId = (p: { date: string; type: string; source: string }): string => `${p.date}|${p.type}|${p.source}`;
