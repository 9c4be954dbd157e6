/**
 * The sample dataset as the import API's records: securities, prices and FX rates on every sample
 * date, position snapshots that follow from the trades, and the trades as settled transactions.
 */
import { FX_FROM_EUR, PORTFOLIOS, SECURITIES, type SampleSecurity } from "./sample-data";
import { SNAPSHOT_DATES, sampleDates, walk } from "./sample-walk";

const SOURCE = "Sample data";
const keyOf = (s: SampleSecurity): string => s.id ?? s.isin;

export interface SampleRecords {
  securities: Record<string, unknown>[];
  prices: Record<string, unknown>[];
  fxRates: Record<string, unknown>[];
  positions: Record<string, unknown>[];
  transactions: Record<string, unknown>[];
}

/** Two business days after a trade date (the usual T+2). */
function settlementOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  for (let days = 0; days < 2;) {
    d.setUTCDate(d.getUTCDate() + 1);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) days += 1;
  }
  return d.toISOString().slice(0, 10);
}

export function sampleRecords(): SampleRecords {
  const dates = sampleDates();
  const prices = new Map(SECURITIES.map((s) => [keyOf(s), walk(s.isin, s.start, dates, 0.015, s.start < 50 ? 4 : 2)]));
  const securities = SECURITIES.map((s) => ({
    ...(s.id === undefined ? {} : { id: s.id }),
    isin: s.isin,
    name: s.name,
    assetClass: s.assetClass,
    currency: s.currency,
    ...(s.ticker === undefined ? {} : { ticker: s.ticker }),
    country: s.country,
  }));
  const priceRecords = SECURITIES.flatMap((s) =>
    dates.map((date) => ({
      isin: s.isin,
      date,
      price: prices.get(keyOf(s))?.get(date),
      currency: s.currency,
      type: s.priceType,
      source: SOURCE,
    })),
  );
  const fxRates = Object.entries(FX_FROM_EUR).flatMap(([quote, start]) => {
    const rates = walk(`EUR${quote}`, start, dates, 0.004, 4);
    return dates.map((date) => ({
      baseCurrency: "EUR",
      quoteCurrency: quote,
      date,
      rate: rates.get(date),
      source: SOURCE,
    }));
  });

  const byKey = new Map(SECURITIES.map((s) => [keyOf(s), s]));
  const positions = PORTFOLIOS.flatMap((p) =>
    SNAPSHOT_DATES.flatMap((date) => {
      const held = new Map<string, number>();
      for (const t of p.trades) if (t.date <= date) held.set(t.security, (held.get(t.security) ?? 0) + t.quantity);
      return [...held].map(([key, quantity]) => {
        const s = byKey.get(key);
        return {
          portfolioCode: p.code,
          ...(s?.id === undefined ? { isin: key } : { securityId: key }),
          date,
          quantity,
        };
      });
    }),
  );
  const transactions = PORTFOLIOS.flatMap((p) =>
    p.trades.map((t, index) => {
      const s = byKey.get(t.security);
      return {
        externalId: `SAMPLE-${p.code}-${String(index + 1).padStart(3, "0")}`,
        portfolioCode: p.code,
        ...(s?.id === undefined ? { isin: t.security } : { securityId: t.security }),
        type: t.quantity > 0 ? "buy" : "sell",
        status: "settled",
        tradeDate: t.date,
        settlementDate: settlementOf(t.date),
        quantity: Math.abs(t.quantity),
        price: prices.get(t.security)?.get(t.date),
        fees: 9.95,
        currency: s?.currency ?? "EUR",
        source: SOURCE,
      };
    }),
  );
  return { securities, prices: priceRecords, fxRates, positions, transactions };
}
