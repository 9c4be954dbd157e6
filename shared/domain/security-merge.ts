import type { ErrorDetail } from "./errors";
import type { Security, SecurityImport } from "./security";

/** The stored value unless the record carries the field (null clears it). */
const carried = <T>(value: T | undefined, stored: T): T => (value === undefined ? stored : value);

/**
 * A security as stored after a record: the stored one with the fields the record carries (absent keeps,
 * null clears), or a new one from the record, which then needs name, assetClass and currency. One
 * source's record never wipes what another source set: a security-master file without tickers leaves
 * the tickers alone.
 */
export function mergeSecurity(
  id: string,
  r: SecurityImport,
  before: Security | undefined,
  now: string,
): { security: Security } | { problems: ErrorDetail[] } {
  const name = r.name ?? before?.name;
  const assetClass = r.assetClass ?? before?.assetClass;
  const currency = r.currency ?? before?.currency;
  if (name === undefined || assetClass === undefined || currency === undefined) {
    const missing = [
      ...(name === undefined ? ["name"] : []),
      ...(assetClass === undefined ? ["assetClass"] : []),
      ...(currency === undefined ? ["currency"] : []),
    ];
    return { problems: missing.map((field) => ({ field, message: "is required for a new security" })) };
  }
  return {
    security: {
      id,
      isin: carried(r.isin, before?.isin ?? null),
      cusip: carried(r.cusip, before?.cusip ?? null),
      sedol: carried(r.sedol, before?.sedol ?? null),
      figi: carried(r.figi, before?.figi ?? null),
      ticker: carried(r.ticker, before?.ticker ?? null),
      name,
      assetClass,
      currency,
      country: carried(r.country, before?.country ?? null),
      exchange: carried(r.exchange, before?.exchange ?? null),
      lookThroughPortfolioId: carried(r.lookThroughPortfolioId, before?.lookThroughPortfolioId ?? null),
      status: r.status ?? before?.status ?? "active",
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    },
  };
}
