import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Transaction } from "../../domain/transaction";
import type { TransactionFilter, TransactionRepository } from "../../ports/investment-repositories";
import { mapConcurrent } from "../../domain/concurrency";
import { bulkWithRetry } from "./bulk";
import { stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";

interface TransactionDoc extends Transaction {
  docType: "transaction";
  /** `tradeDate|id`: one field that orders the list uniquely. */
  sortKey: string;
}

/** Ids per look-up query: keeps each query's text well under Cosmos DB's limit (ids are 36 characters). */
const LOOKUP_IDS = 1000;

const toTransaction = ({ docType: _d, sortKey: _s, ...t }: TransactionDoc): Transaction => t;

/** Transactions in the `transactions` container (partition /portfolioId). */
export class CosmosTransactionRepository implements TransactionRepository {
  constructor(private readonly container: Container) {}

  /** The version each transaction handed out by getMany was read at. */
  private readonly versions = new WeakMap<Transaction, string>();

  /**
   * The stored transactions among `refs`: one query per portfolio (partition) and up to LOOKUP_IDS ids,
   * `ARRAY_CONTAINS(@ids, c.id)` answered from the id index. An import of new transactions finds none,
   * so it pays a few queries per batch rather than a point read per transaction (its own write's cost).
   */
  async getMany(refs: readonly { portfolioId: string; id: string }[]): Promise<Map<string, Transaction>> {
    const byPortfolio = new Map<string, Set<string>>();
    for (const { portfolioId, id } of refs) {
      const ids = byPortfolio.get(portfolioId);
      if (ids === undefined) byPortfolio.set(portfolioId, new Set([id]));
      else ids.add(id);
    }
    const lookups: { portfolioId: string; ids: string[] }[] = [];
    for (const [portfolioId, set] of byPortfolio) {
      const ids = [...set];
      for (let i = 0; i < ids.length; i += LOOKUP_IDS) lookups.push({ portfolioId, ids: ids.slice(i, i + LOOKUP_IDS) });
    }
    const out = new Map<string, Transaction>();
    await mapConcurrent(lookups, 4, async ({ portfolioId, ids }) => {
      const { resources } = await this.container.items
        .query<TransactionDoc & { _etag?: string }>(
          {
            query:
              "SELECT * FROM c WHERE c.portfolioId = @p AND c.docType = 'transaction' AND ARRAY_CONTAINS(@ids, c.id)",
            parameters: [
              { name: "@p", value: portfolioId },
              { name: "@ids", value: ids },
            ],
          },
          // One page per look-up (a page of the server's default size is 100 documents).
          { partitionKey: portfolioId, maxItemCount: LOOKUP_IDS },
        )
        .fetchAll();
      for (const { _etag, ...doc } of resources) {
        const transaction = toTransaction(stripSystem(doc));
        if (_etag !== undefined) this.versions.set(transaction, _etag);
        out.set(doc.id, transaction);
      }
    });
    return out;
  }

  async save(writes: readonly { next: Transaction; previous: Transaction | undefined }[]): Promise<void> {
    const operations: OperationInput[] = writes.map(({ next, previous }) => {
      const doc = { ...next, docType: "transaction", sortKey: `${next.tradeDate}|${next.id}` } satisfies TransactionDoc;
      return previous === undefined
        ? { operationType: BulkOperationType.Create, resourceBody: doc as unknown as JSONObject }
        : {
            operationType: BulkOperationType.Replace,
            id: next.id,
            resourceBody: doc as unknown as JSONObject,
            ifMatch: this.versions.get(previous) ?? "",
          };
    });
    const results = await bulkWithRetry(this.container, operations);
    const raced = results.findIndex((r) => r.statusCode === 409 || r.statusCode === 412);
    if (raced >= 0) {
      throw new AppError(
        "CONFLICT",
        `Transaction '${writes[raced]?.next.externalId ?? ""}' was changed by another import at the same time; retry this import`,
        { retryable: true },
      );
    }
    const failed = results.find((r) => r.statusCode < 200 || r.statusCode > 299);
    if (failed !== undefined) throw new Error(`transaction write failed with ${failed.statusCode}`);
  }

  async list(filter: TransactionFilter, request: PageRequest): Promise<CursorPage<Transaction>> {
    const { where, parameters } = equalityFilters({
      portfolioId: filter.portfolioId,
      securityId: filter.securityId,
      type: filter.type,
      status: filter.status,
    });
    where.unshift("c.docType = 'transaction'");
    if (filter.from !== undefined) {
      where.push("c.tradeDate >= @from");
      parameters.push({ name: "@from", value: filter.from });
    }
    if (filter.to !== undefined) {
      where.push("c.tradeDate <= @to");
      parameters.push({ name: "@to", value: filter.to });
    }
    const page = await pagedQuery<TransactionDoc>(
      this.container,
      { where, parameters, sortField: "sortKey", partitionKey: filter.portfolioId },
      request,
    );
    return { ...page, items: page.items.map(toTransaction) };
  }
}
