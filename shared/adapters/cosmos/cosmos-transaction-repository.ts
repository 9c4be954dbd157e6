import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Transaction } from "../../domain/transaction";
import { systemClock, type Clock } from "../../ports/clock";
import type { AsAt, HistoryPage, TransactionFilter, TransactionRepository } from "../../ports/investment-repositories";
import { mapConcurrent } from "../../domain/concurrency";
import { stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";
import { asAtPagedQuery } from "./versions/as-at-lists";
import { readAsAt, type AsAtSource } from "./versions/as-at-reads";
import { historyEntries } from "./versions/history";
import { recordedOf, type WithRecorded } from "./versions/recorded";
import { versionsBeside, type VersionedKind } from "./versions/version-docs";
import { writeVersioned, type Current, type VersionedTarget } from "./versions/versioned-writes";

interface TransactionDoc extends Transaction, WithRecorded {
  docType: "transaction";
  /** `tradeDate|id`: one field that orders the list uniquely. */
  sortKey: string;
}

/** Ids per look-up query: keeps each query's text well under Cosmos DB's limit (ids are 36 characters). */
const LOOKUP_IDS = 1000;

const toTransaction = (doc: TransactionDoc): Transaction => {
  const { docType: _d, sortKey: _s, recorded: _r, ...t } = stripSystem(doc);
  const { _etag: _e, ...rest } = t as Transaction & { _etag?: string };
  return rest;
};

const transactionKind: VersionedKind<TransactionDoc> = {
  kind: "transaction",
  partitionKeyOf: (doc) => doc.portfolioId,
  recordIdOf: (doc) => doc.id,
};

/** Transactions in the `transactions` container (partition /portfolioId); every change records a version in `versions`. */
export class CosmosTransactionRepository implements TransactionRepository {
  private readonly target: VersionedTarget<TransactionDoc>;
  private readonly source: AsAtSource;

  constructor(
    private readonly container: Container,
    versions: Container = versionsBeside(container),
    clock: Clock = systemClock,
  ) {
    this.target = { container, versions, kind: transactionKind, clock };
    this.source = { container, versions, kind: transactionKind.kind };
  }

  /** The stored document (with its ETag) each transaction handed out by getMany was read from. */
  private readonly stored = new WeakMap<Transaction, Current<TransactionDoc>>();

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
      for (const doc of resources) {
        const transaction = toTransaction(doc);
        this.stored.set(transaction, { ...stripSystem(doc), _etag: doc._etag });
        out.set(doc.id, transaction);
      }
    });
    return out;
  }

  recordedAtOf(transaction: Transaction): string | undefined {
    const doc = this.stored.get(transaction);
    return doc === undefined ? undefined : recordedOf(doc).at;
  }

  async save(writes: readonly { next: Transaction; previous: Transaction | undefined }[]): Promise<string[]> {
    const outcomes = await writeVersioned(
      this.target,
      writes.map(({ next }) => ({ id: next.id, partitionKey: next.portfolioId })),
      (_current, i): TransactionDoc | undefined => {
        const next = writes[i]?.next;
        return next === undefined
          ? undefined
          : { ...next, docType: "transaction", sortKey: `${next.tradeDate}|${next.id}` };
      },
      {
        known: (i) => {
          const previous = writes[i]?.previous;
          return previous === undefined ? undefined : this.stored.get(previous);
        },
        retryRaces: false,
      },
    );
    const raced = outcomes.findIndex((o) => o.outcome === "raced");
    if (raced >= 0) {
      throw new AppError(
        "CONFLICT",
        `Transaction '${writes[raced]?.next.externalId ?? ""}' was changed by another import at the same time; retry this import`,
        { retryable: true },
      );
    }
    return outcomes.map((o) => o.recordedAt ?? "");
  }

  async get(id: string, asAt?: AsAt): Promise<Transaction | undefined> {
    // The id does not name the portfolio (the partition): one query across partitions, on the id index.
    const { resources } = await this.container.items
      .query<TransactionDoc>({
        query: "SELECT * FROM c WHERE c.id = @id AND c.docType = 'transaction'",
        parameters: [{ name: "@id", value: id }],
      })
      .fetchAll();
    const current = resources[0];
    if (current === undefined) return undefined;
    if (asAt === undefined) return toTransaction(current);
    const doc = await readAsAt(
      this.source,
      { id, partitionKey: current.portfolioId },
      asAt,
      undefined,
      current as unknown as Record<string, unknown>,
    );
    return doc === undefined ? undefined : toTransaction(doc as unknown as TransactionDoc);
  }

  async history(id: string, request: PageRequest): Promise<HistoryPage<Transaction> | undefined> {
    const { resources } = await this.container.items
      .query<TransactionDoc>({
        query: "SELECT * FROM c WHERE c.id = @id AND c.docType = 'transaction'",
        parameters: [{ name: "@id", value: id }],
      })
      .fetchAll();
    const current = resources[0];
    if (current === undefined) return undefined;
    return historyEntries(
      this.source,
      [
        {
          current: stripSystem(current) as unknown as Record<string, unknown>,
          recordId: id,
          partitionKey: current.portfolioId,
        },
      ],
      request,
      (doc) => toTransaction(doc as unknown as TransactionDoc),
    );
  }

  async list(filter: TransactionFilter, request: PageRequest, asAt?: AsAt): Promise<CursorPage<Transaction>> {
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
    const query = {
      where,
      parameters,
      sortField: "sortKey",
      ...(filter.portfolioId !== undefined ? { partitionKey: filter.portfolioId } : {}),
    };
    const page =
      asAt === undefined
        ? await pagedQuery<TransactionDoc>(this.container, query, request)
        : await asAtPagedQuery(this.source, query, request, asAt);
    return { ...page, items: page.items.map((doc) => toTransaction(doc as unknown as TransactionDoc)) };
  }
}
