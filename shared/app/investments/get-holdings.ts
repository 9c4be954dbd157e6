import { notFound } from "../../domain/errors";
import type { Portfolio } from "../../domain/portfolio";
import { lookThrough, type FundValuation, type Holding } from "../../domain/valuation/index";
import type { FxRateRepository, PositionRepository, SecurityRepository, StoredValuation } from "../../ports/investment-repositories";
import type { PortfolioRepository } from "../../ports/portfolio-repository";
import { pairsFor } from "./valuation-service";

export interface HoldingsView {
  portfolioId: string;
  date: string | null;
  baseCurrency: string;
  lookThrough: boolean;
  totalValue: number;
  holdings: Holding[];
}

const MAX_FUND_DEPTH = 10;

/** Holdings of a portfolio on a date (the latest valuation on or before it), optionally looked through. */
export class Holdings {
  constructor(
    private readonly portfolios: PortfolioRepository,
    private readonly positions: PositionRepository,
    private readonly securities: SecurityRepository,
    private readonly fxRates: FxRateRepository,
  ) {}

  async get(portfolioId: string, date: string | undefined, expand: boolean): Promise<HoldingsView> {
    const portfolio = await this.portfolios.get(portfolioId);
    if (portfolio === undefined) throw notFound(`Portfolio '${portfolioId}'`);
    const on = date ?? portfolio.latestValuationDate;
    const valuation = on === null ? undefined : await this.positions.valuation(portfolio.id, on, true);
    if (valuation === undefined) {
      return { portfolioId: portfolio.id, date: null, baseCurrency: portfolio.baseCurrency, lookThrough: expand, totalValue: 0, holdings: [] };
    }
    const holdings = expand ? await this.expand(portfolio, valuation) : valuation.holdings;
    return { portfolioId: portfolio.id, date: valuation.date, baseCurrency: valuation.baseCurrency, lookThrough: expand, totalValue: valuation.totalValue, holdings };
  }

  /** Loads every fund reachable from the holdings (breadth first, bounded), then expands in memory. */
  private async expand(portfolio: Portfolio, valuation: StoredValuation): Promise<Holding[]> {
    const fundOf = new Map<string, string>();
    const funds = new Map<string, FundValuation>();
    const currencies = new Set<string>();
    let frontier = valuation.holdings;
    for (let depth = 0; depth < MAX_FUND_DEPTH && frontier.length > 0; depth++) {
      const unseen = [...new Set(frontier.map((h) => h.securityId))].filter((id) => !fundOf.has(id));
      const securities = await this.securities.getMany(unseen);
      const next: Holding[] = [];
      for (const security of securities.values()) {
        const fundId = security.lookThroughPortfolioId;
        if (fundId === null) continue;
        fundOf.set(security.id, fundId);
        if (funds.has(fundId)) continue;
        const fund = await this.positions.valuation(fundId, valuation.date, true);
        if (fund === undefined) continue;
        funds.set(fundId, { portfolioId: fundId, baseCurrency: fund.baseCurrency, totalValue: fund.totalValue, holdings: fund.holdings });
        currencies.add(fund.baseCurrency);
        next.push(...fund.holdings);
      }
      frontier = next;
    }
    if (funds.size === 0) return valuation.holdings;
    const fx = await this.fxRates.latest(pairsFor(currencies, portfolio.baseCurrency), valuation.date);
    return lookThrough(valuation.holdings, {
      baseCurrency: valuation.baseCurrency,
      date: valuation.date,
      fundOf: (securityId) => fundOf.get(securityId),
      fundValuation: (id) => funds.get(id),
      fx,
    });
  }
}
