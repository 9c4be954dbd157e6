import { z } from "zod";

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
export const CASH_ONLY: readonly TransactionType[] = ["interest", "fee", "deposit", "withdrawal"];
