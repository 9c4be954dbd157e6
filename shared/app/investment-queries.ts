import { notFound } from "../domain/errors";
import { looksLikeIsin } from "../domain/isin";
import type { Job } from "../domain/job";
import type { CursorPage, PageRequest } from "../domain/page-request";
import { paginationOf, type Pagination } from "../domain/pagination";
import type { Price } from "../domain/price";
import type { Security } from "../domain/security";
import type { Transaction } from "../domain/transaction";
import type { JobRepository, PriceFilter, PriceRepository, SecurityFilter, SecurityRepository, TransactionFilter, TransactionRepository } from "../ports/investment-repositories";

/** The read side of securities, prices, transactions and refresh jobs. */
export class InvestmentQueries {
  constructor(
    private readonly securities: SecurityRepository,
    private readonly prices: PriceRepository,
    private readonly transactions: TransactionRepository,
    private readonly jobs: JobRepository,
  ) {}

  async listSecurities(filter: SecurityFilter, page: number, pageSize: number): Promise<{ items: Security[]; pagination: Pagination }> {
    const result = await this.securities.list(filter, page, pageSize);
    return { items: result.items, pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  /** By the service's id, or by ISIN. */
  async security(idOrIsin: string): Promise<Security> {
    const byId = await this.securities.get(idOrIsin);
    if (byId !== undefined) return byId;
    if (looksLikeIsin(idOrIsin)) {
      const id = (await this.securities.idsForIsins([idOrIsin])).get(idOrIsin);
      const byIsin = id === undefined ? undefined : await this.securities.get(id);
      if (byIsin !== undefined) return byIsin;
    }
    throw notFound(`Security '${idOrIsin}'`);
  }

  async priceList(idOrIsin: string, filter: PriceFilter, request: PageRequest): Promise<CursorPage<Price>> {
    const security = await this.security(idOrIsin);
    return this.prices.list(security.id, filter, request);
  }

  transactionsList(filter: TransactionFilter, request: PageRequest): Promise<CursorPage<Transaction>> {
    return this.transactions.list(filter, request);
  }

  async job(id: string): Promise<Job> {
    const job = await this.jobs.get(id);
    if (job === undefined) throw notFound(`Job '${id}'`);
    return job;
  }

  jobsList(filter: { status?: Job["status"]; dataType?: string }, request: PageRequest): Promise<CursorPage<Job>> {
    return this.jobs.list(filter, request);
  }
}
