import { z } from "zod";
import { amountNumber, MAX_AMOUNT, MAX_PRICE, MAX_QUANTITY, quantityNumber } from "./bounds";
import { currencyCode } from "./currency";
import { isoDate } from "./dates";
import { isinSchema } from "./isin";
import { roundMoney, toDecimal, toNumber } from "./valuation/money";

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
    quantity: quantityNumber.optional(),
    price: z
      .number()
      .nonnegative()
      .finite()
      .max(MAX_PRICE, { message: `must be at most ${MAX_PRICE.toExponential()}` })
      .optional()
      .meta({ description: `Price per unit, 0 to ${MAX_PRICE.toExponential()}` }),
    grossAmount: amountNumber.optional().meta({
      description: `quantity × price before fees; |grossAmount| ≤ ${MAX_AMOUNT.toExponential()}. For a buy or sell it defaults to quantity × price, computed exactly and rounded half away from zero to the currency's minor units (JPY 0, EUR 2, KWD 3 decimals)`,
    }),
    fees: amountNumber
      .nonnegative()
      .optional()
      .meta({ description: `Fees, 0 to ${MAX_AMOUNT.toExponential()}; absent counts as 0 when netAmount is derived` }),
    netAmount: amountNumber.optional().meta({
      description: `Cash moved; |netAmount| ≤ ${MAX_AMOUNT.toExponential()}. Required, except for a buy or sell, where it defaults to grossAmount + fees (buy) or grossAmount − fees (sell), grossAmount itself defaulting to quantity × price; without netAmount, grossAmount or both quantity and price the record is rejected`,
    }),
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
    // Fields already out of range have their own issue; a derivation from them would only repeat it.
    const outOfRange =
      Math.abs(t.quantity ?? 0) > MAX_QUANTITY ||
      (t.price ?? 0) > MAX_PRICE ||
      Math.abs(t.grossAmount ?? 0) > MAX_AMOUNT ||
      (t.fees ?? 0) > MAX_AMOUNT;
    if (outOfRange) return;
    const derived = deriveAmounts(t);
    if (derived === undefined) {
      const message =
        t.type === "buy" || t.type === "sell"
          ? "netAmount is required, or quantity and price to derive it"
          : `netAmount is required for a ${t.type}`;
      ctx.addIssue({ code: "custom", path: ["netAmount"], message });
      return;
    }
    for (const field of ["grossAmount", "netAmount"] as const) {
      const value = derived[field];
      if (t[field] === undefined && value !== null && Math.abs(value) > MAX_AMOUNT) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `the derived ${field} ${value} is beyond ${MAX_AMOUNT.toExponential()}; check quantity, price and fees`,
        });
      }
    }
  })
  .meta({ id: "TransactionImport" });
export type TransactionImport = z.infer<typeof transactionImportSchema>;

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

/** What deriveAmounts reads of an imported transaction. */
interface AmountFields {
  type: TransactionType;
  quantity?: number | undefined;
  price?: number | undefined;
  grossAmount?: number | undefined;
  fees?: number | undefined;
  netAmount?: number | undefined;
  currency: string;
}

/**
 * The gross and net amounts to store: as sent, or for a buy or sell derived with exact decimal
 * arithmetic (gross = quantity × price; net = gross + fees for a buy, gross − fees for a sell),
 * rounded to the currency's minor units. Undefined when netAmount is absent and cannot be derived.
 */
export function deriveAmounts(t: AmountFields): { grossAmount: number | null; netAmount: number } | undefined {
  const trade = t.type === "buy" || t.type === "sell";
  let gross = t.grossAmount === undefined ? undefined : toDecimal(t.grossAmount);
  if (gross === undefined && trade && t.quantity !== undefined && t.price !== undefined) {
    gross = roundMoney(toDecimal(t.quantity).times(toDecimal(t.price)), t.currency);
  }
  const grossAmount = gross === undefined ? null : toNumber(gross);
  if (t.netAmount !== undefined) return { grossAmount, netAmount: t.netAmount };
  if (!trade || gross === undefined) return undefined;
  const fees = toDecimal(t.fees ?? 0);
  const net = t.type === "buy" ? gross.plus(fees) : gross.minus(fees);
  return { grossAmount, netAmount: toNumber(roundMoney(net, t.currency)) };
}

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
