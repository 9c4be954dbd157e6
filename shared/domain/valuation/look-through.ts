import { minorUnits } from "../currency";
import { resolveFx, type FxMethod, type FxTable } from "./fx";
import { compareHoldings, totalOf, weightOf } from "./holding-ranking";
import { allocate, roundTo, toDecimal, toNumber } from "./money";
import type { Holding } from "./valuation";

/** What look-through needs of a fund portfolio's own valuation. */
export interface FundValuation {
  portfolioId: string;
  baseCurrency: string;
  totalValue: number;
  holdings: readonly Holding[];
}

/** Where look-through finds funds, their valuations and FX; the caller decides how to fetch them. */
export interface LookThroughContext {
  baseCurrency: string;
  date: string;
  /** The portfolio being looked through, if known: a fund that leads back to it is not expanded. */
  portfolioId?: string;
  /** The security's lookThroughPortfolioId. */
  fundOf(securityId: string): string | undefined;
  /** The fund portfolio's valuation on or before the date. */
  fundValuation(portfolioId: string): FundValuation | undefined;
  fx: FxTable;
  /** Currencies a cross rate may go through (FX_PIVOT_CURRENCIES). */
  fxPivots: readonly string[];
}

// A row and the fund portfolios it came through, which its security ids alone cannot show.
interface Row {
  holding: Holding;
  fundPath: readonly string[];
}

/**
 * Replaces each holding of a fund that has its own valuation by that fund's holdings, pro rata
 * to the holding's share of the fund, recursively. Children's market values are allocated from
 * the parent's, so they add up to it exactly and the total does not move. Weights are recomputed
 * against that unchanged total.
 */
export function lookThrough(holdings: readonly Holding[], context: LookThroughContext): Holding[] {
  const fundPath = context.portfolioId === undefined ? [] : [context.portfolioId];
  const out: Holding[] = [];
  for (const holding of holdings) {
    expand({ holding, fundPath }, context, out);
  }
  const total = totalOf(out);
  return out.map((holding) => ({ ...holding, weight: weightOf(holding.marketValue, total) })).sort(compareHoldings);
}

function expand(row: Row, context: LookThroughContext, out: Holding[]): void {
  const children = explode(row, context);
  if (children === undefined) {
    out.push(row.holding);
    return;
  }
  for (const child of children) expand(child, context, out);
}

/** The rows replacing `row`, or undefined when it stays as it is. */
function explode(row: Row, context: LookThroughContext): Row[] | undefined {
  const { holding } = row;
  const fundId = context.fundOf(holding.securityId);
  // A zero-valued holding would only turn into zero-valued rows that say nothing.
  if (fundId === undefined || holding.marketValue === null || holding.marketValue === 0) return undefined;
  // Cycle guard: a fund already on the path stays a holding, which also bounds the recursion.
  if (holding.via?.includes(holding.securityId) || row.fundPath.includes(fundId)) return undefined;

  const fund = context.fundValuation(fundId);
  if (fund === undefined || fund.totalValue === 0) return undefined;
  const fx = resolveFx(fund.baseCurrency, context.baseCurrency, context.date, context.fx, context.fxPivots);
  if (fx === undefined) return undefined;
  const valued = fund.holdings.flatMap((child) => (child.marketValue === null ? [] : [toDecimal(child.marketValue)]));
  // allocate cannot split by weights that cancel out; the fund's figures are inconsistent then.
  if (valued.length === 0 || valued.reduce((sum, v) => sum.plus(v), toDecimal(0)).isZero()) return undefined;

  const parentValue = toDecimal(holding.marketValue);
  const fraction = parentValue.div(toDecimal(fund.totalValue).times(fx.rate));
  // The parent's value is in the base currency, already rounded to its minor units; so are the parts.
  const parts = allocate(parentValue, valued, minorUnits(context.baseCurrency));
  const via = [...(holding.via ?? []), holding.securityId];
  const fundPath = [...row.fundPath, fundId];

  let nextPart = 0;
  return fund.holdings.map((child) => {
    const part = child.marketValue === null ? undefined : parts[nextPart++];
    const quantity = toDecimal(child.quantity).times(fraction);
    const fxRate = child.fxRate === null ? null : toDecimal(child.fxRate).times(fx.rate);
    // A fund valuation that was itself looked through brings its own path; keep it behind ours.
    const childVia = [...via, ...(child.via ?? [])];
    return {
      holding: {
        ...child,
        quantity: toNumber(roundTo(quantity, 8)),
        fxRate: fxRate === null ? null : toNumber(roundTo(fxRate, 10)),
        fxMethod: chainMethod(child.fxMethod, fx.method),
        fxPivot: chainPivot(child, fx, fund.baseCurrency),
        marketValue: part === undefined ? null : toNumber(part),
        weight: null,
        via: childVia,
      },
      fundPath,
    };
  });
}

/**
 * The currency a chained rate went through: a cross's own pivot when only one of the two steps
 * converts, else the fund's base currency, where the two conversions meet.
 */
function chainPivot(
  child: Pick<Holding, "fxMethod" | "fxPivot">,
  outer: { method: FxMethod; pivot?: string },
  fundCurrency: string,
): string | null {
  if (child.fxMethod === null) return null;
  if (child.fxMethod === "identity") return outer.pivot ?? null;
  if (outer.method === "identity") return child.fxPivot;
  return fundCurrency;
}

/** How a rate built from two conversions in a row was found. */
function chainMethod(inner: FxMethod | null, outer: FxMethod): FxMethod | null {
  if (inner === null) return null;
  if (inner === "identity") return outer;
  if (outer === "identity") return inner;
  return "cross";
}
