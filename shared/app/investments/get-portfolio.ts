import { notFound } from "../../domain/errors";
import type { PortfolioView } from "../../domain/portfolio";
import type { InvestmentDeps } from "./investment-deps";
import { portfolioView } from "./portfolio-view";

/** One portfolio. */
export class GetPortfolio {
  constructor(private readonly deps: Pick<InvestmentDeps, "portfolios">) {}

  async execute(id: string): Promise<PortfolioView> {
    const portfolio = await this.deps.portfolios.get(id);
    if (portfolio === undefined) throw notFound(`Portfolio '${id}'`);
    return portfolioView(portfolio);
  }
}
