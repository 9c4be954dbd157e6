import type { Container, JSONObject, SqlParameter } from "@azure/cosmos";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Transaction } from "../../domain/transaction";
import type { TransactionFilter, TransactionRepository } from "../../ports/investment-repositories";
import { bulkRead, bulkUpsert } from "./bulk";
import { pagedQuery } from "./paged-query";

interface TransactionDoc extends Transaction {
  docType: "transaction";
  /** `tradeDate|id`: one field that orders the list uniquely. */
  sortKey: string;
}

const toTransaction = ({ docType: _d, sortKey: _s, ...t }: TransactionDoc): Transaction => t;

/** Transactions in the `transactions` container (partition /portfolioId). */
export class CosmosTransactionRepository implements TransactionRepository {
  constructor(private readonly container: Container) {}

  async getMany(refs: readonly { portfolioId: string; id: string }[]): Promise<Map<string, Transaction>> {
    const docs = await bulkRead<TransactionDoc>(this.container, refs.map((r) => ({ id: r.id, partitionKey: r.portfolioId })));
    const out = new Map<string, Transaction>();
    for (const doc of docs.values()) out.set(doc.id, toTransaction(doc));
    return out;
  }

  async save(transactions: readonly Transaction[]): Promise<void> {
    const docs: TransactionDoc[] = transactions.map((t) => ({ ...t, docType: "transaction", sortKey: `${t.tradeDate}|${t.id}` }));
    await bulkUpsert(this.container, docs as unknown as JSONObject[]);
  }

  async list(filter: TransactionFilter, request: PageRequest): Promise<CursorPage<Transaction>> {
    const where = ["c.docType = 'transaction'"];
    const parameters: SqlParameter[] = [];
    const eq = (field: keyof TransactionFilter, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`c.${field} = @${field}`);
      parameters.push({ name: `@${field}`, value });
    };
    eq("portfolioId", filter.portfolioId);
    eq("securityId", filter.securityId);
    eq("type", filter.type);
    eq("status", filter.status);
    if (filter.from !== undefined) {
      where.push("c.tradeDate >= @from");
      parameters.push({ name: "@from", value: filter.from });
    }
    if (filter.to !== undefined) {
      where.push("c.tradeDate <= @to");
      parameters.push({ name: "@to", value: filter.to });
    }
    const page = await pagedQuery<TransactionDoc>(this.container, { where, parameters, sortField: "sortKey" }, request);
    return { ...page, items: page.items.map(toTransaction) };
  }
}
