import { z } from "zod";
import { fxRateNumber } from "./bounds";
import { currencyCode } from "./currency";
import { isoDate } from "./dates";

/** 1 `baseCurrency` = `rate` `quoteCurrency`. */
export const fxRateImportSchema = z
  .strictObject({
    baseCurrency: currencyCode,
    quoteCurrency: currencyCode,
    date: isoDate,
    rate: fxRateNumber,
    source: z.string().trim().min(1).max(100),
  })
  .refine((r) => r.baseCurrency !== r.quoteCurrency, {
    message: "must differ from baseCurrency",
    path: ["quoteCurrency"],
  })
  .meta({ id: "FxRateImport" });
export type FxRateImport = z.infer<typeof fxRateImportSchema>;

export interface FxRate extends FxRateImport {
  pair: string;
  updatedAt: string;
}

export const fxPair = (base: string, quote: string): string => `${base}${quote}`;
export const fxRateId = (r: { date: string; source: string }): string => `${r.date}|${r.source}`;

/** An FX rate as `GET /api/v1/fx-rates` shows it. */
export const fxRateSchema = z
  .object({
    baseCurrency: z.string(),
    quoteCurrency: z.string(),
    date: z.iso.date(),
    rate: z.number().meta({ description: "1 baseCurrency = rate quoteCurrency" }),
    source: z.string(),
  })
  .meta({ id: "FxRate" });
export type FxRateView = z.infer<typeof fxRateSchema>;
