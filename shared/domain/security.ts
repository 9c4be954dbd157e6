import { z } from "zod";
import { currencyCode } from "./currency";
import { idParam } from "./ids";
import { isinSchema } from "./isin";

export const assetClassSchema = z.enum(["equity", "bond", "fund", "etf", "cash", "derivative", "other"]);

export const securitySchema = z
  .object({
    id: z.string(),
    isin: z.string().nullable(),
    cusip: z.string().nullable(),
    sedol: z.string().nullable(),
    figi: z.string().nullable(),
    ticker: z.string().nullable(),
    name: z.string(),
    assetClass: assetClassSchema,
    currency: z.string(),
    country: z.string().nullable(),
    exchange: z.string().nullable(),
    lookThroughPortfolioId: z
      .string()
      .nullable()
      .meta({ description: "The fund portfolio whose holdings this security looks through to" }),
    status: z.enum(["active", "inactive"]),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Security" });
export type Security = z.infer<typeof securitySchema>;

const optionalText = (max: number) => z.string().trim().min(1).max(max).optional();

/** One record of `POST /api/v1/import/securities`: keyed by `id` when given, else by `isin`. */
export const securityImportSchema = z
  .strictObject({
    id: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only")
      .optional(),
    isin: isinSchema.optional(),
    cusip: z
      .string()
      .regex(/^[0-9A-Z]{9}$/, "must be 9 letters or digits")
      .optional(),
    sedol: z
      .string()
      .regex(/^[0-9B-DF-HJ-NP-TV-Z]{7}$/, "must be 7 characters")
      .optional(),
    figi: z
      .string()
      .regex(/^BBG[0-9B-DF-HJ-NP-TV-Z]{9}$/, "must be a FIGI (BBG + 9 characters)")
      .optional(),
    ticker: optionalText(30),
    name: z.string().trim().min(1).max(300),
    assetClass: assetClassSchema,
    currency: currencyCode,
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, "must be an ISO 3166 alpha-2 code")
      .optional(),
    exchange: optionalText(20),
    lookThroughPortfolioId: z.string().min(1).max(200).optional(),
    status: z.enum(["active", "inactive"]).default("active"),
  })
  .refine((s) => s.id !== undefined || s.isin !== undefined, { message: "id or isin is required", path: ["isin"] })
  .meta({ id: "SecurityImport" });
export type SecurityImport = z.infer<typeof securityImportSchema>;

export const securityIdParams = z.object({
  securityId: idParam(200).meta({ description: "The service's security id, or an ISIN" }),
});
