export { allocate, PreciseDecimal, roundMoney, roundTo, toDecimal, toNumber } from "./money";
export { DEFAULT_FX_PIVOTS, fxPairsFor, latestOnOrBefore, resolveFx } from "./fx";
export type { FxMethod, FxPoint, FxResolution, FxTable } from "./fx";
export { selectPrice } from "./price-selection";
export { priceReach, type PriceReach } from "./price-reach";
export type { PricePoint, PriceType } from "./price-selection";
export { priceJump } from "./price-jump";
export { valuePortfolio } from "./valuation";
export type {
  Holding,
  PositionInput,
  SecurityInfo,
  UnvaluedReason,
  Valuation,
  ValuationInput,
  ValuationIssue,
} from "./valuation";
export { completenessOf } from "./completeness";
export { completeHolding, type StoredHolding } from "./stored-holding";
export { lookThrough } from "./look-through";
export type { FundValuation, LookThroughContext } from "./look-through";
export { daysBetween } from "./calendar";
export { compareHoldings, totalOf, weightOf } from "./holding-ranking";
