import { notFound } from "../../domain/errors";
import type { Transaction } from "../../domain/transaction";
import type { InvestmentDeps } from "./investment-deps";

/** One transaction by id, as it is or as it was known at `asAt` (404 when it was not known yet). */
export class GetTransaction {
  constructor(private readonly deps: Pick<InvestmentDeps, "transactions">) {}

  async execute(id: string, asAt?: string): Promise<Transaction> {
    const transaction = await this.deps.transactions.get(id, asAt);
    if (transaction === undefined) throw notFound(`Transaction '${id}'`);
    return transaction;
  }
}
