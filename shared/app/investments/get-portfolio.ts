import { notFound } from "../../domain/errors";
import type { PortfolioView } from "../../domain/portfolio";
import type { InvestmentDeps } from "./investment-deps";
import { portfolioView } from "./portfolio-view";

/** One portfolio, as it is or as it was known at `asAt` (404 when it was not known yet). */
export class GetPortfolio {
  constructor(private readonly deps: Pick<InvestmentDeps, "portfolios">) {}

  async execute(id: string, asAt?: string): Promise<PortfolioView> {
    const portfolio = await this.deps.portfolios.get(id, asAt);
    if (portfolio === undefined) throw notFound(`Portfolio '${id}'`);
    return portfolioView(portfolio);
  }
}
