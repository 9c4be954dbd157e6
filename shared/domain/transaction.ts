import { z } from "zod";
import { MAX_AMOUNT, magnitudeNumber, quantityNumber, transactionPriceNumber } from "./bounds";
import { currencyCode } from "./currency";
import { isoDate } from "./dates";
import { idParam } from "./ids";
import { isinSchema } from "./isin";
import { grossOf, isTrade, transactionProblems } from "./transaction-amounts";
import { transactionStatusSchema, transactionTypeSchema, type TransactionStatus } from "./transaction-type";

export {
  CASH_ONLY,
  transactionStatusSchema,
  transactionTypeSchema,
  type TransactionStatus,
  type TransactionType,
} from "./transaction-type";
export { deriveAmounts, grossOf, netOf, transactionProblems, type AmountView } from "./transaction-amounts";

const onCreate = (what: string): string =>
  `${what}; required when the record creates the transaction, kept when absent`;

/**
 * One record of `POST /api/v1/import/transactions`, keyed by portfolio and `externalId`. A record
 * that updates a stored transaction carries only what changes: an absent field keeps its stored
 * value, `null` clears a nullable one (see mergeTransaction). The checks here are those its own
 * fields decide; the rest (required on create, the amounts against what is stored) follow the merge.
 */
export const transactionImportSchema = z
  .strictObject({
    externalId: z.string().trim().min(1).max(200),
    portfolioId: idParam(200).optional(),
    portfolioCode: z.string().min(1).max(50).optional(),
    securityId: idParam(200)
      .nullable()
      .optional()
      .meta({ description: "The security (or isin); null: none (interest, fee, deposit, withdrawal only)" }),
    isin: isinSchema.nullable().optional(),
    type: transactionTypeSchema.optional().meta({ description: onCreate("The transaction type") }),
    status: transactionStatusSchema
      .optional()
      .meta({ description: "pending when the record creates the transaction; kept when absent" }),
    tradeDate: isoDate.optional().meta({ description: onCreate("The trade date") }),
    settlementDate: isoDate.nullable().optional(),
    quantity: quantityNumber.nullable().optional(),
    price: transactionPriceNumber.nullable().optional(),
    grossAmount: magnitudeNumber
      .nullable()
      .optional()
      .meta({
        description: `quantity × price before fees, a magnitude (0 to ${MAX_AMOUNT.toExponential()}). For a buy or sell it defaults to quantity × price, computed exactly and rounded half away from zero to the currency's minor units (JPY 0, EUR 2, KWD 3 decimals)`,
      }),
    fees: magnitudeNumber
      .nullable()
      .optional()
      .meta({ description: `Fees, 0 to ${MAX_AMOUNT.toExponential()}; none counts as 0 for netAmount` }),
    netAmount: magnitudeNumber.optional().meta({
      description: `The settlement amount, a magnitude (0 to ${MAX_AMOUNT.toExponential()}): for a buy grossAmount + fees, for a sell grossAmount − fees, for the other types the amount moved. A buy or sell derives it when absent; a given one that differs from grossAmount ± fees by more than one minor unit of the currency is rejected. Required when the record creates any other type`,
    }),
    currency: currencyCode.optional().meta({ description: onCreate("ISO 4217 currency code of the amounts") }),
    source: z.string().trim().min(1).max(100).nullable().optional(),
  })
  .superRefine((t, ctx) => {
    if (t.portfolioId === undefined && t.portfolioCode === undefined) {
      ctx.addIssue({ code: "custom", path: ["portfolioId"], message: "portfolioId or portfolioCode is required" });
    }
    // What the record's own fields already decide, whatever is stored (undefined: not known yet). A
    // field with an issue of its own is not known: a rule would only repeat that issue.
    let known = t;
    if (ctx.issues.length > 0) {
      const failed = new Set(ctx.issues.map((i) => i.path?.[0]));
      known = Object.fromEntries(Object.entries(t).filter(([field]) => !failed.has(field))) as TransactionImport;
    }
    const hasSecurity =
      known.securityId === undefined && known.isin === undefined
        ? undefined
        : (known.securityId ?? known.isin ?? null) !== null;
    for (const p of transactionProblems({ ...known, hasSecurity, grossAmount: carriedGross(known) })) {
      ctx.addIssue({ code: "custom", path: [p.field], message: p.message });
    }
  })
  .meta({ id: "TransactionImport" });
export type TransactionImport = z.infer<typeof transactionImportSchema>;

/**
 * A record's grossAmount as the merge will know it: sent, or (a buy or sell sending quantity and price)
 * derived. The exact product only where a rule could fail on it (a netAmount to compare, fees that may
 * exceed it, a product near the bound); elsewhere it is left unknown, which passes every rule it would
 * have passed: a file's rows are checked at a few microseconds each.
 */
function carriedGross(t: TransactionImport): number | null | undefined {
  if (typeof t.grossAmount === "number" || t.type === undefined) return t.grossAmount ?? undefined;
  if (!isTrade(t.type)) return t.grossAmount;
  if (t.quantity == null || t.price == null || t.currency === undefined) return undefined;
  const estimate = Math.abs(t.quantity * t.price);
  const needed =
    t.netAmount !== undefined ||
    estimate > MAX_AMOUNT * 0.999 ||
    (t.type === "sell" && t.fees != null && t.fees >= estimate * 0.999);
  return needed ? grossOf(t.quantity, t.price, t.currency) : undefined;
}

export const statusChangeSchema = z.object({
  status: transactionStatusSchema,
  at: z.iso.datetime(),
  source: z.string().nullable(),
});

export const transactionSchema = z
  .object({
    id: z.string(),
    externalId: z.string(),
    portfolioId: z.string(),
    securityId: z.string().nullable(),
    type: transactionTypeSchema,
    status: transactionStatusSchema,
    tradeDate: z.iso.date(),
    settlementDate: z.iso.date().nullable(),
    quantity: z.number().nullable(),
    price: z.number().nullable(),
    grossAmount: z.number().nullable(),
    fees: z.number().nullable(),
    netAmount: z.number(),
    currency: z.string(),
    source: z.string().nullable(),
    statusHistory: z.array(statusChangeSchema),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Transaction" });
export type Transaction = z.infer<typeof transactionSchema>;

const transitions: Record<TransactionStatus, readonly TransactionStatus[]> = {
  pending: ["settled", "failed", "cancelled"],
  settled: [],
  failed: [],
  cancelled: [],
};

/** pending → settled | failed | cancelled; the other states are final. Staying put is not a move. */
export function transactionMove(from: TransactionStatus, to: TransactionStatus): "same" | "legal" | "illegal" {
  if (from === to) return "same";
  return transitions[from].includes(to) ? "legal" : "illegal";
}
