import { z } from "zod";
import { currencyCode } from "./currency";
import { isoDate } from "./dates";
import { isinSchema } from "./isin";

export const transactionTypeSchema = z.enum([
  "buy",
  "sell",
  "dividend",
  "interest",
  "fee",
  "deposit",
  "withdrawal",
  "transfer_in",
  "transfer_out",
  "corporate_action",
]);
export type TransactionType = z.infer<typeof transactionTypeSchema>;
export const transactionStatusSchema = z.enum(["pending", "settled", "failed", "cancelled"]);
export type TransactionStatus = z.infer<typeof transactionStatusSchema>;

/** Types that move cash only and need no security. */
const CASH_ONLY: readonly TransactionType[] = ["interest", "fee", "deposit", "withdrawal"];

export const transactionImportSchema = z
  .strictObject({
    externalId: z.string().trim().min(1).max(200),
    portfolioId: z.string().min(1).max(200).optional(),
    portfolioCode: z.string().min(1).max(50).optional(),
    securityId: z.string().min(1).max(200).optional(),
    isin: isinSchema.optional(),
    type: transactionTypeSchema,
    status: transactionStatusSchema.default("pending"),
    tradeDate: isoDate,
    settlementDate: isoDate.optional(),
    quantity: z.number().finite().optional(),
    price: z.number().nonnegative().finite().optional(),
    grossAmount: z.number().finite().optional(),
    fees: z.number().nonnegative().finite().optional(),
    netAmount: z.number().finite(),
    currency: currencyCode,
    source: z.string().trim().min(1).max(100).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.portfolioId === undefined && t.portfolioCode === undefined) {
      ctx.addIssue({ code: "custom", path: ["portfolioId"], message: "portfolioId or portfolioCode is required" });
    }
    if (!CASH_ONLY.includes(t.type) && t.securityId === undefined && t.isin === undefined) {
      ctx.addIssue({ code: "custom", path: ["securityId"], message: `securityId or isin is required for a ${t.type}` });
    }
    if ((t.type === "buy" || t.type === "sell") && (t.quantity === undefined || t.quantity <= 0)) {
      ctx.addIssue({ code: "custom", path: ["quantity"], message: `a ${t.type} needs a positive quantity` });
    }
    if (t.settlementDate !== undefined && t.settlementDate < t.tradeDate) {
      ctx.addIssue({ code: "custom", path: ["settlementDate"], message: "must not be before tradeDate" });
    }
  })
  .meta({ id: "TransactionImport" });
export type TransactionImport = z.infer<typeof transactionImportSchema>;

export const statusChangeSchema = z.object({ status: transactionStatusSchema, at: z.iso.datetime(), source: z.string().nullable() });

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
