import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Transaction } from "../../domain/transaction";
import type { TransactionFilter } from "../../ports/investment-repositories";
import type { InvestmentDeps } from "./investment-deps";

/** A page of transactions. */
export class ListTransactions {
  constructor(private readonly deps: Pick<InvestmentDeps, "transactions">) {}

  execute({
    filter,
    page,
    asAt,
  }: {
    filter: TransactionFilter;
    page: PageRequest;
    asAt?: string | undefined;
  }): Promise<CursorPage<Transaction>> {
    return this.deps.transactions.list(filter, page, asAt);
  }
}
