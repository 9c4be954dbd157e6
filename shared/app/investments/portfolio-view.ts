import type { Portfolio, PortfolioView } from "../../domain/portfolio";

/** The API's view: `valuationStatus` as the repository read it (a portfolio never flagged is current). */
export const portfolioView = (portfolio: Portfolio): PortfolioView => ({
  ...portfolio,
  valuationStatus: portfolio.valuationStatus ?? "current",
});
