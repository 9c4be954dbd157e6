import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { PortfolioView } from "../../domain/portfolio";
import type { PortfolioFilter } from "../../ports/portfolio-repository";
import type { InvestmentDeps } from "./investment-deps";
import { portfolioView } from "./portfolio-view";

/** A page of portfolios by number or by cursor: every portfolio can be walked, however many. */
export class ListPortfolios {
  constructor(private readonly deps: Pick<InvestmentDeps, "portfolios">) {}

  async execute({
    filter,
    page,
    asAt,
  }: {
    filter: PortfolioFilter;
    page: PageRequest;
    asAt?: string | undefined;
  }): Promise<CursorPage<PortfolioView>> {
    const result = await this.deps.portfolios.list(filter, page, asAt);
    return { ...result, items: result.items.map(portfolioView) };
  }
}
