import { notFound } from "../../domain/errors";
import type { Portfolio } from "../../domain/portfolio";
import {
  completenessOf,
  fxPairsFor,
  lookThrough,
  type FundValuation,
  type Holding,
} from "../../domain/valuation/index";
import type { StoredValuation } from "../../ports/investment-repositories";
import type { InvestmentDeps } from "./investment-deps";

export interface HoldingsView {
  portfolioId: string;
  date: string | null;
  baseCurrency: string;
  lookThrough: boolean;
  /** The valued holdings' sum: every holding's when `complete`. */
  totalValue: number;
  /** Every holding listed has a market value (looked through: down to the funds' holdings). */
  complete: boolean;
  /** Holdings listed without a market value (each says why in `unvalued`). */
  unvaluedCount: number;
  holdings: Holding[];
}

const MAX_FUND_DEPTH = 10;

export interface HoldingsRequest {
  portfolioId: string;
  /** Default: the portfolio's latest valuation date. */
  date?: string | undefined;
  /** Expand fund holdings pro rata. */
  lookThrough: boolean;
  /** As known at this instant: the valuations, funds, securities and FX rates that were current then. */
  asAt?: string | undefined;
}

/**
 * Holdings of a portfolio on a date (the latest valuation on or before it), optionally looked through.
 * As at an instant: the valuation that was current then (stored, never recomputed).
 */
export class GetHoldings {
  constructor(
    private readonly deps: Pick<InvestmentDeps, "portfolios" | "positions" | "securities" | "fxRates">,
    /** Currencies a cross rate may go through (FX_PIVOT_CURRENCIES), for a fund in another currency. */
    private readonly fxPivots: readonly string[],
  ) {}

  async execute({ portfolioId, date, lookThrough: expand, asAt }: HoldingsRequest): Promise<HoldingsView> {
    const portfolio = await this.deps.portfolios.get(portfolioId, asAt);
    if (portfolio === undefined) throw notFound(`Portfolio '${portfolioId}'`);
    const on = date ?? portfolio.latestValuationDate;
    const valuation = on === null ? undefined : await this.deps.positions.valuation(portfolio.id, on, true, asAt);
    if (valuation === undefined) {
      return {
        portfolioId: portfolio.id,
        date: null,
        baseCurrency: portfolio.baseCurrency,
        lookThrough: expand,
        totalValue: 0,
        complete: true,
        unvaluedCount: 0,
        holdings: [],
      };
    }
    const holdings = expand ? await this.expand(portfolio, valuation, asAt) : valuation.holdings;
    return {
      portfolioId: portfolio.id,
      date: valuation.date,
      baseCurrency: valuation.baseCurrency,
      lookThrough: expand,
      totalValue: valuation.totalValue,
      ...completenessOf(holdings),
      holdings,
    };
  }

  /** Loads every fund reachable from the holdings (breadth first, bounded), then expands in memory. */
  private async expand(portfolio: Portfolio, valuation: StoredValuation, asAt: string | undefined): Promise<Holding[]> {
    const fundOf = new Map<string, string>();
    const funds = new Map<string, FundValuation>();
    const currencies = new Set<string>();
    let frontier = valuation.holdings;
    for (let depth = 0; depth < MAX_FUND_DEPTH && frontier.length > 0; depth++) {
      const unseen = [...new Set(frontier.map((h) => h.securityId))].filter((id) => !fundOf.has(id));
      const securities = await this.deps.securities.getMany(unseen, asAt);
      const next: Holding[] = [];
      for (const security of securities.values()) {
        const fundId = security.lookThroughPortfolioId;
        if (fundId === null) continue;
        fundOf.set(security.id, fundId);
        if (funds.has(fundId)) continue;
        const fund = await this.deps.positions.valuation(fundId, valuation.date, true, asAt);
        if (fund === undefined) continue;
        funds.set(fundId, {
          portfolioId: fundId,
          baseCurrency: fund.baseCurrency,
          totalValue: fund.totalValue,
          holdings: fund.holdings,
        });
        currencies.add(fund.baseCurrency);
        next.push(...fund.holdings);
      }
      frontier = next;
    }
    if (funds.size === 0) return valuation.holdings;
    const fx = await this.deps.fxRates.latest(
      fxPairsFor(currencies, portfolio.baseCurrency, this.fxPivots),
      valuation.date,
      asAt,
    );
    return lookThrough(valuation.holdings, {
      baseCurrency: valuation.baseCurrency,
      date: valuation.date,
      fundOf: (securityId) => fundOf.get(securityId),
      fundValuation: (id) => funds.get(id),
      fx,
      fxPivots: this.fxPivots,
    });
  }
}
