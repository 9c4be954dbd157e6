import type Decimal from "decimal.js";
import { daysBetween } from "./calendar";
import { resolveFx, type FxMethod, type FxTable } from "./fx";
import { completenessOf } from "./completeness";
import { compareHoldings, totalOf, weightOf } from "./holding-ranking";
import { roundMoney, roundTo, toDecimal, toNumber } from "./money";
import { selectPrice, type PricePoint, type PriceType } from "./price-selection";

export interface SecurityInfo {
  id: string;
  isin?: string;
  name: string;
  assetClass: string;
  currency: string;
  lookThroughPortfolioId?: string;
}

export interface PositionInput {
  securityId: string;
  quantity: number;
}

/** Everything needed to value one portfolio on one date; nothing is fetched. */
export interface ValuationInput {
  portfolioId: string;
  baseCurrency: string;
  date: string;
  /** May name a security several times (a composite merges its members); quantities are summed. */
  positions: readonly PositionInput[];
  securities: ReadonlyMap<string, SecurityInfo>;
  /** All known prices, by security id. */
  prices: ReadonlyMap<string, readonly PricePoint[]>;
  fx: FxTable;
  pricePreference: readonly PriceType[];
  /** A chosen price more than this many days older than `date` is reported as stale. */
  staleAfterDays: number;
  /** Currencies a cross rate may go through, in order of preference (FX_PIVOT_CURRENCIES). */
  fxPivots: readonly string[];
}

/**
 * Why a holding has no market value: no price on or before the date, no FX path into the base
 * currency, a security the service does not know, or figures beyond what can be computed.
 */
export type UnvaluedReason = "MISSING_PRICE" | "MISSING_FX_RATE" | "UNKNOWN_SECURITY" | "VALUE_OUT_OF_RANGE";

export interface Holding {
  securityId: string;
  isin: string | null;
  name: string;
  assetClass: string;
  quantity: number;
  price: number | null;
  priceDate: string | null;
  priceType: PriceType | null;
  priceCurrency: string | null;
  fxRate: number | null;
  fxMethod: FxMethod | null;
  /** The currency a cross rate went through (fxMethod `cross`), else null. */
  fxPivot: string | null;
  marketValue: number | null;
  weight: number | null;
  /** Why marketValue is null; null when the holding is valued. */
  unvalued: UnvaluedReason | null;
  via?: string[];
}

export type ValuationIssue =
  | { type: "MISSING_PRICE"; securityId: string; date: string }
  | { type: "STALE_PRICE"; securityId: string; date: string; priceDate: string; ageDays: number }
  | { type: "MISSING_FX_RATE"; from: string; to: string; date: string; securityId: string }
  | { type: "UNKNOWN_SECURITY"; securityId: string; date: string }
  | { type: "VALUE_OUT_OF_RANGE"; securityId: string; date: string };

export interface Valuation {
  portfolioId: string;
  date: string;
  baseCurrency: string;
  /** The sum of the valued holdings only: complete says whether that is every holding. */
  totalValue: number;
  holdings: Holding[];
  /** Every holding has a market value. */
  complete: boolean;
  /** Holdings without a market value (left out of totalValue and the weights). */
  unvaluedCount: number;
  issues: ValuationIssue[];
}

/**
 * Far beyond what bounded inputs can produce (1e39), and low enough that no number of holdings can
 * add up to more than a JSON number holds: a market value above it is out of range.
 */
const MAX_MARKET_VALUE = 1e300;

/**
 * Values one portfolio on its date: each security's net quantity at its selected price,
 * converted into the base currency. Holdings that cannot be valued are still listed, with null
 * value and weight, `unvalued` and an issue saying why, and are left out of the total; the
 * valuation says it is then not complete.
 */
export function valuePortfolio(input: ValuationInput): Valuation {
  const issues = new Map<string, ValuationIssue>();
  const report = (issue: ValuationIssue): void => {
    // Every issue is built with its fields in one fixed order, so the JSON text is a stable key.
    const key = JSON.stringify(issue);
    if (!issues.has(key)) issues.set(key, issue);
  };

  const unweighted = [...netQuantities(input.positions)].map(([securityId, quantity]) =>
    valueHolding(securityId, quantity, input, report),
  );
  // The total adds the already rounded values, so it always equals the sum of the listed holdings.
  const total = totalOf(unweighted);
  const holdings = unweighted
    .map((holding) => ({ ...holding, weight: weightOf(holding.marketValue, total) }))
    .sort(compareHoldings);

  return {
    portfolioId: input.portfolioId,
    date: input.date,
    baseCurrency: input.baseCurrency,
    totalValue: toNumber(total),
    holdings,
    ...completenessOf(holdings),
    issues: [...issues.values()],
  };
}

/** Net quantity per security, summed exactly, without zeros, in security id order. */
function netQuantities(positions: readonly PositionInput[]): Map<string, Decimal> {
  const sums = new Map<string, Decimal>();
  for (const { securityId, quantity } of positions) {
    const previous = sums.get(securityId);
    sums.set(securityId, previous === undefined ? toDecimal(quantity) : previous.plus(toDecimal(quantity)));
  }
  // Sorting here makes the issue list come out in a stable order too.
  const ids = [...sums.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const net = new Map<string, Decimal>();
  for (const id of ids) {
    const quantity = sums.get(id);
    if (quantity !== undefined && !quantity.isZero()) net.set(id, quantity);
  }
  return net;
}

function valueHolding(
  securityId: string,
  quantity: Decimal,
  input: ValuationInput,
  report: (issue: ValuationIssue) => void,
): Holding {
  const { date, baseCurrency } = input;
  const security = input.securities.get(securityId);
  // Stored data from before input bounds existed (or written around them) must not stop the whole
  // portfolio: a holding whose figures leave the range of a JSON number is listed unvalued instead
  // (a net quantity beyond it shows as 0, the issue saying why).
  const outOfRange = (): void => report({ type: "VALUE_OUT_OF_RANGE", securityId, date });
  if (!Number.isFinite(toNumber(quantity))) outOfRange();
  const bare: Holding = {
    securityId,
    isin: security?.isin ?? null,
    // An unknown security still shows up, under its id, so that no position silently vanishes.
    name: security?.name ?? securityId,
    assetClass: security?.assetClass ?? "other",
    quantity: Number.isFinite(toNumber(quantity)) ? toNumber(quantity) : 0,
    price: null,
    priceDate: null,
    priceType: null,
    priceCurrency: null,
    fxRate: null,
    fxMethod: null,
    fxPivot: null,
    marketValue: null,
    weight: null,
    unvalued: "UNKNOWN_SECURITY",
  };
  // Without the security record there is nothing to check a price against; do not guess a value.
  if (security === undefined) {
    report({ type: "UNKNOWN_SECURITY", securityId, date });
    return bare;
  }

  const point = selectPrice(input.prices.get(securityId) ?? [], date, input.pricePreference);
  if (point === undefined) {
    report({ type: "MISSING_PRICE", securityId, date });
    return { ...bare, unvalued: "MISSING_PRICE" };
  }
  const ageDays = daysBetween(point.date, date);
  if (ageDays > input.staleAfterDays) {
    report({ type: "STALE_PRICE", securityId, date, priceDate: point.date, ageDays });
  }
  const priced: Holding = {
    ...bare,
    price: point.price,
    priceDate: point.date,
    priceType: point.type,
    priceCurrency: point.currency,
  };

  const fx = resolveFx(point.currency, baseCurrency, date, input.fx, input.fxPivots);
  if (fx === undefined) {
    report({ type: "MISSING_FX_RATE", from: point.currency, to: baseCurrency, date, securityId });
    return { ...priced, unvalued: "MISSING_FX_RATE" };
  }
  if (!Number.isFinite(point.price) || !fx.rate.isFinite()) {
    outOfRange();
    return { ...priced, unvalued: "VALUE_OUT_OF_RANGE" };
  }
  const value = roundMoney(quantity.times(toDecimal(point.price)).times(fx.rate), baseCurrency);
  const fxRate = toNumber(roundTo(fx.rate, 10));
  if (
    !(Math.abs(toNumber(value)) <= MAX_MARKET_VALUE) ||
    !Number.isFinite(fxRate) ||
    !Number.isFinite(toNumber(quantity))
  ) {
    outOfRange();
    return { ...priced, unvalued: "VALUE_OUT_OF_RANGE" };
  }
  return {
    ...priced,
    fxRate,
    fxMethod: fx.method,
    fxPivot: fx.pivot ?? null,
    marketValue: toNumber(value),
    unvalued: null,
  };
}
