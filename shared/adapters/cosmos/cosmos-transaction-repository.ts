import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Transaction } from "../../domain/transaction";
import type { TransactionFilter, TransactionRepository } from "../../ports/investment-repositories";
import { bulkRead, bulkWithRetry } from "./bulk";
import { equalityFilters, pagedQuery } from "./paged-query";

interface TransactionDoc extends Transaction {
  docType: "transaction";
  /** `tradeDate|id`: one field that orders the list uniquely. */
  sortKey: string;
}

const toTransaction = ({ docType: _d, sortKey: _s, ...t }: TransactionDoc): Transaction => t;

/** Transactions in the `transactions` container (partition /portfolioId). */
export class CosmosTransactionRepository implements TransactionRepository {
  constructor(private readonly container: Container) {}

  /** The version each transaction handed out by getMany was read at. */
  private readonly versions = new WeakMap<Transaction, string>();

  async getMany(refs: readonly { portfolioId: string; id: string }[]): Promise<Map<string, Transaction>> {
    const docs = await bulkRead<TransactionDoc & { _etag?: string }>(this.container, refs.map((r) => ({ id: r.id, partitionKey: r.portfolioId })), true);
    const out = new Map<string, Transaction>();
    for (const { _etag, ...doc } of docs.values()) {
      const transaction = toTransaction(doc);
      if (_etag !== undefined) this.versions.set(transaction, _etag);
      out.set(doc.id, transaction);
    }
    return out;
  }

  async save(writes: readonly { next: Transaction; previous: Transaction | undefined }[]): Promise<void> {
    const operations: OperationInput[] = writes.map(({ next, previous }) => {
      const doc = { ...next, docType: "transaction", sortKey: `${next.tradeDate}|${next.id}` } satisfies TransactionDoc;
      return previous === undefined
        ? { operationType: BulkOperationType.Create, resourceBody: doc as unknown as JSONObject }
        : { operationType: BulkOperationType.Replace, id: next.id, resourceBody: doc as unknown as JSONObject, ifMatch: this.versions.get(previous) ?? "" };
    });
    const results = await bulkWithRetry(this.container, operations);
    const raced = results.findIndex((r) => r.statusCode === 409 || r.statusCode === 412);
    if (raced >= 0) {
      throw new AppError("CONFLICT", `Transaction '${writes[raced]?.next.externalId ?? ""}' was changed by another import at the same time; retry this import`, { retryable: true });
    }
    const failed = results.find((r) => r.statusCode < 200 || r.statusCode > 299);
    if (failed !== undefined) throw new Error(`transaction write failed with ${failed.statusCode}`);
  }

  async list(filter: TransactionFilter, request: PageRequest): Promise<CursorPage<Transaction>> {
    const { where, parameters } = equalityFilters({ portfolioId: filter.portfolioId, securityId: filter.securityId, type: filter.type, status: filter.status });
    where.unshift("c.docType = 'transaction'");
    if (filter.from !== undefined) {
      where.push("c.tradeDate >= @from");
      parameters.push({ name: "@from", value: filter.from });
    }
    if (filter.to !== undefined) {
      where.push("c.tradeDate <= @to");
      parameters.push({ name: "@to", value: filter.to });
    }
    const page = await pagedQuery<TransactionDoc>(this.container, { where, parameters, sortField: "sortKey", partitionKey: filter.portfolioId }, request);
    return { ...page, items: page.items.map(toTransaction) };
  }
}
