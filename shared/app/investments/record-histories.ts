import { notFound } from "../../domain/errors";
import type { PageRequest } from "../../domain/page-request";
import type { PortfolioView } from "../../domain/portfolio";
import type { Price } from "../../domain/price";
import type { Security } from "../../domain/security";
import type { Transaction } from "../../domain/transaction";
import type { HistoryPage, PriceKey } from "../../ports/investment-repositories";
import { findSecurity } from "./find-security";
import type { InvestmentDeps } from "./investment-deps";
import { portfolioView } from "./portfolio-view";

/**
 * The version histories (API.md, "Time travel"): newest first, each entry with the record as the
 * single read showed it right after that version. 404 when the record does not exist.
 */
export class RecordHistories {
  constructor(private readonly deps: Pick<InvestmentDeps, "portfolios" | "securities" | "prices" | "transactions">) {}

  async portfolio(id: string, page: PageRequest): Promise<HistoryPage<PortfolioView>> {
    const history = await this.deps.portfolios.history(id, page);
    if (history === undefined) throw notFound(`Portfolio '${id}'`);
    return {
      ...history,
      items: history.items.map(({ record, ...version }) => ({
        ...version,
        ...(record !== undefined ? { record: portfolioView(record) } : {}),
      })),
    };
  }

  async security(idOrIsin: string, page: PageRequest): Promise<HistoryPage<Security>> {
    const security = await findSecurity(this.deps.securities, idOrIsin);
    const history = await this.deps.securities.history(security.id, page);
    if (history === undefined) throw notFound(`Security '${idOrIsin}'`);
    return history;
  }

  async price(idOrIsin: string, key: PriceKey, page: PageRequest): Promise<HistoryPage<Price>> {
    const security = await findSecurity(this.deps.securities, idOrIsin);
    const history = await this.deps.prices.history(security.id, key, page);
    if (history.totalItems === 0)
      throw notFound(
        `Price of '${idOrIsin}' on ${key.date} (${key.type}${key.source !== undefined ? `, ${key.source}` : ""})`,
      );
    return history;
  }

  async transaction(id: string, page: PageRequest): Promise<HistoryPage<Transaction>> {
    const history = await this.deps.transactions.history(id, page);
    if (history === undefined) throw notFound(`Transaction '${id}'`);
    return history;
  }
}
