import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Transaction } from "../../domain/transaction";
import type { TransactionFilter, TransactionRepository } from "../../ports/investment-repositories";

/** Reads of transactions. */
export class TransactionQueries {
  constructor(private readonly transactions: TransactionRepository) {}

  list(filter: TransactionFilter, request: PageRequest): Promise<CursorPage<Transaction>> {
    return this.transactions.list(filter, request);
  }
}
