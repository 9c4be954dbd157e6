import type { DataQualityCandidate, DataQualityException } from "../../domain/data-quality-exception";
import type { Valuation, ValuationIssue } from "../../domain/valuation/index";

/**
 * The data-quality exception a valuation issue opens. MISSING_PRICE, STALE_PRICE and MISSING_FX_RATE
 * are one per portfolio-date (and security or currency pair) and name it (`foundIn`): they follow
 * their cause, which only a revaluation of that portfolio-date can see go.
 */
export function issueToCandidate(
  issue: ValuationIssue,
  portfolioId: string,
  fxPivots: readonly string[],
): DataQualityCandidate {
  const foundIn = { portfolioId, date: issue.date };
  switch (issue.type) {
    case "MISSING_PRICE":
      return {
        key: `MISSING_PRICE|${portfolioId}|${issue.date}|${issue.securityId}`,
        type: "MISSING_PRICE",
        severity: "error",
        message: `No price for security ${issue.securityId} on or before ${issue.date} (portfolio ${portfolioId})`,
        entity: { type: "security", id: issue.securityId },
        foundIn,
      };
    case "STALE_PRICE":
      return {
        key: `STALE_PRICE|${portfolioId}|${issue.date}|${issue.securityId}`,
        type: "STALE_PRICE",
        severity: "warning",
        message: `The latest price of security ${issue.securityId} is from ${issue.priceDate}, ${issue.ageDays} days before ${issue.date} (portfolio ${portfolioId})`,
        entity: { type: "security", id: issue.securityId },
        foundIn,
      };
    case "MISSING_FX_RATE": {
      const through = fxPivots.length === 0 ? "" : ` or through ${fxPivots.join(", ")}`;
      return {
        key: `MISSING_FX_RATE|${portfolioId}|${issue.date}|${issue.from}${issue.to}`,
        type: "MISSING_FX_RATE",
        severity: "error",
        message: `No FX rate from ${issue.from} to ${issue.to} on or before ${issue.date}, direct, inverse${through} (portfolio ${portfolioId})`,
        entity: { type: "fxPair", id: `${issue.from}${issue.to}` },
        foundIn,
      };
    }
    case "UNKNOWN_SECURITY":
      return {
        key: `UNKNOWN_SECURITY|${issue.securityId}`,
        type: "UNKNOWN_SECURITY",
        severity: "error",
        message: `Security ${issue.securityId} is held but not known`,
        entity: { type: "security", id: issue.securityId },
      };
    case "VALUE_OUT_OF_RANGE":
      return {
        key: `VALUE_OUT_OF_RANGE|${portfolioId}|${issue.securityId}|${issue.date}`,
        type: "VALUE_OUT_OF_RANGE",
        severity: "error",
        message: `Security ${issue.securityId} in portfolio ${portfolioId} cannot be valued on ${issue.date}: its quantity × price × FX rate is beyond what can be computed; it is left out of the total until its position or price is corrected`,
        entity: { type: "portfolio", id: portfolioId },
      };
  }
}

/** Why a revaluation that no longer finds an exception's cause resolves it, said from what it found instead. */
export function resolutionOf(valuation: Valuation, exception: DataQualityException): string {
  const where = `portfolio ${valuation.portfolioId} on ${valuation.date}`;
  const id = exception.entity.id;
  if (exception.type === "MISSING_FX_RATE") {
    const from = id.slice(0, 3);
    const converted = valuation.holdings.find((h) => h.priceCurrency === from && h.fxMethod !== null);
    if (converted === undefined) return `Nothing priced in ${from} needs converting any more in ${where}`;
    const how =
      converted.fxMethod === "cross"
        ? `a cross rate through ${converted.fxPivot ?? ""}`
        : `a ${converted.fxMethod} rate`;
    return `${from} now converts into ${valuation.baseCurrency} by ${how} in ${where}`;
  }
  const holding = valuation.holdings.find((h) => h.securityId === id && h.via === undefined);
  if (holding === undefined) return `Security ${id} is no longer held in ${where}`;
  if (holding.priceDate === null) return `Security ${id} in ${where} has no price at all now (see MISSING_PRICE)`;
  const price = `a ${holding.priceType ?? ""} price of ${holding.priceDate}`;
  return exception.type === "STALE_PRICE"
    ? `The price used for security ${id} in ${where} is now ${price}, within the staleness limit`
    : `${price.charAt(0).toUpperCase()}${price.slice(1)} now values security ${id} in ${where}`;
}
