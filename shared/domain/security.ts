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

const optionalText = (max: number) => z.string().trim().min(1).max(max).nullable().optional();
const onCreate = (what: string): string => `${what}; required when the record creates the security, kept when absent`;

/**
 * One record of `POST /api/v1/import/securities`: keyed by `id` when given, else by `isin`. A record for
 * a stored security carries only what changes: an absent field keeps its stored value, `null` clears a
 * nullable one; a new security needs name, assetClass and currency.
 */
export const securityImportSchema = z
  .strictObject({
    id: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only")
      .optional(),
    isin: isinSchema
      .nullable()
      .optional()
      .meta({ description: "The ISIN; null removes it (a record keyed by id only)" }),
    cusip: z
      .string()
      .regex(/^[0-9A-Z]{9}$/, "must be 9 letters or digits")
      .nullable()
      .optional(),
    sedol: z
      .string()
      .regex(/^[0-9B-DF-HJ-NP-TV-Z]{7}$/, "must be 7 characters")
      .nullable()
      .optional(),
    figi: z
      .string()
      .regex(/^BBG[0-9B-DF-HJ-NP-TV-Z]{9}$/, "must be a FIGI (BBG + 9 characters)")
      .nullable()
      .optional(),
    ticker: optionalText(30),
    name: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .meta({ description: onCreate("The name") }),
    assetClass: assetClassSchema.optional().meta({ description: onCreate("The asset class") }),
    currency: currencyCode.optional().meta({ description: onCreate("ISO 4217 currency code") }),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, "must be an ISO 3166 alpha-2 code")
      .nullable()
      .optional(),
    exchange: optionalText(20),
    lookThroughPortfolioId: idParam(200).nullable().optional(),
    status: z
      .enum(["active", "inactive"])
      .optional()
      .meta({ description: "active when the record creates the security; kept when absent" }),
  })
  .refine((s) => s.id !== undefined || s.isin != null, { message: "id or isin is required", path: ["isin"] })
  .meta({ id: "SecurityImport" });
export type SecurityImport = z.infer<typeof securityImportSchema>;

export const securityIdParams = z.object({
  securityId: idParam(200).meta({ description: "The service's security id, or an ISIN" }),
});
