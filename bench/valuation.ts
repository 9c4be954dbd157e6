import autocannon from "autocannon";
import { adminToken, type BenchRuntime } from "./harness";
import { isinFor, post } from "./fixtures";

const POSITIONS = 5000;
const CURRENCIES = ["EUR", "USD", "GBP"] as const;
const DATE = "2024-06-28";

/** One portfolio of 5,000 positions in 3 currencies revalued after a price import; then holdings read latency. */
export async function benchValuation(runtime: BenchRuntime): Promise<void> {
  const token = await adminToken(runtime.baseUrl);
  const offset = 500_000; // ISINs apart from the import benchmark's
  const securities = Array.from({ length: POSITIONS }, (_, i) => ({ isin: isinFor(offset + i), name: `Valuation security ${i}`, assetClass: "equity", currency: CURRENCIES[i % 3] }));
  const prices = (bump: number) =>
    securities.map((s, i) => ({ isin: s.isin, date: DATE, price: Math.round((50 + (i % 400) / 4 + bump) * 100) / 100, currency: s.currency, type: "close", source: "bench" }));
  const check = (what: string, reply: { status: number; body: unknown }): void => {
    if (reply.status >= 300) throw new Error(`${what} failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
  };
  check("securities", await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities }));
  check("fx", await post(runtime.baseUrl, token, "/api/v1/import/fx-rates", { fxRates: [
    { baseCurrency: "EUR", quoteCurrency: "USD", date: DATE, rate: 1.07, source: "bench" },
    { baseCurrency: "GBP", quoteCurrency: "USD", date: DATE, rate: 1.26, source: "bench" },
  ] }));
  check("prices", await post(runtime.baseUrl, token, "/api/v1/import/prices", { prices: prices(0) }));
  const portfolio = await post(runtime.baseUrl, token, "/api/v1/portfolios", { name: "Valuation bench", code: `VAL-${Date.now()}`, clientId: "bench", baseCurrency: "EUR" });
  check("portfolio", portfolio);
  const portfolioId = (portfolio.body as { data: { id: string } }).data.id;
  const positions = await post(runtime.baseUrl, token, "/api/v1/import/positions", { positions: securities.map((s, i) => ({ portfolioId, isin: s.isin, date: DATE, quantity: 10 + (i % 90) })) });
  check("positions", positions);

  // The measured step: a price import that moves every held security, and the revaluation it triggers.
  const revalue = await post(runtime.baseUrl, token, "/api/v1/import/prices", { prices: prices(0.5) });
  check("price import", revalue);
  const holdingsUrl = `${runtime.baseUrl}/api/v1/portfolios/${portfolioId}/holdings`;
  const first = (await (await fetch(holdingsUrl, { headers: { Authorization: `Bearer ${token}` } })).json()) as { data: { totalValue: number; holdings: unknown[] } };
  const read = await autocannon({ url: holdingsUrl, connections: 4, duration: 10, headers: { Authorization: `Bearer ${token}` } });
  console.log("\n== Valuation: 5,000 positions in EUR, USD, GBP (portfolio in EUR) ==");
  console.log(`positions import (snapshot + first valuation): ${(positions.ms / 1000).toFixed(2)} s`);
  console.log(`price import of 5,000 prices + revaluation:    ${(revalue.ms / 1000).toFixed(2)} s`);
  console.log(`holdings: ${first.data.holdings.length} rows, totalValue ${first.data.totalValue} EUR`);
  console.log(`GET holdings (5,000 rows, ~${Math.round(JSON.stringify(first).length / 1024)} KB), 4 connections, 10 s: ${read.requests.average.toFixed(1)}/s  p50 ${read.latency.p50} ms  p99 ${read.latency.p99} ms  non-2xx ${read.non2xx}  errors ${read.errors}`);
}
