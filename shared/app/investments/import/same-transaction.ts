import type { Transaction } from "../../../domain/transaction";

const DATA_FIELDS = [
  "portfolioId",
  "securityId",
  "type",
  "status",
  "tradeDate",
  "settlementDate",
  "quantity",
  "price",
  "grossAmount",
  "fees",
  "netAmount",
  "currency",
  "source",
] as const;

/** Whether a re-imported transaction carries the same data (history and timestamps aside). */
export function sameTransaction(a: Transaction, b: Transaction): boolean {
  return DATA_FIELDS.every((field) => a[field] === b[field]);
}
