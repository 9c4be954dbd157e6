import { adminToken, startBenchRuntime } from "./harness";
import { isinFor, post } from "./fixtures";
import { securityIdFor } from "./price-snapshot";

const SAMPLES = 20;

async function p50(url: string, token: string): Promise<{ ms: number; body: unknown }> {
  const times: number[] = [];
  let body: unknown;
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    body = await response.json();
    if (response.status !== 200)
      throw new Error(`GET ${url}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? 0, body };
}

/**
 * The local runtime started on a data folder whose Cosmos store holds `documents` prices (left there by
 * the stand-in benchmark): its start time, and p50 of a one-security price read and a portfolio list.
 */
export async function benchApiOnLargeStore(dataDir: string, documents: number): Promise<void> {
  const started = performance.now();
  const runtime = await startBenchRuntime({ LOCAL_DATA_DIR: dataDir });
  const startSeconds = (performance.now() - started) / 1000;
  try {
    const token = await adminToken(runtime.baseUrl);
    const securities = [0, 1, 2].map((n) => ({
      isin: isinFor(n),
      name: `Bench security ${n}`,
      assetClass: "equity",
      currency: "EUR",
    }));
    const imported = await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities });
    if (imported.status !== 200) throw new Error(`securities import failed: ${JSON.stringify(imported.body)}`);
    const created = await post(runtime.baseUrl, token, "/api/v1/portfolios", {
      name: "Bench",
      code: `BENCH-${Date.now()}`,
      clientId: "bench",
      baseCurrency: "EUR",
    });
    if (created.status >= 300) throw new Error(`portfolio create failed: ${JSON.stringify(created.body)}`);
    const prices = await p50(`${runtime.baseUrl}/api/v1/securities/${securityIdFor(1)}/prices`, token);
    const rows = (prices.body as { data: unknown[]; pagination: { totalItems?: number } }).data.length;
    const portfolios = await p50(`${runtime.baseUrl}/api/v1/portfolios`, token);
    console.log(`\n== Local runtime with ${documents.toLocaleString("en-US")} prices stored ==`);
    console.log(`runtime start (restore included): ${startSeconds.toFixed(2)} s`);
    console.log(`GET /api/v1/securities/{id}/prices (${rows} rows): p50 ${prices.ms.toFixed(1)} ms`);
    console.log(`GET /api/v1/portfolios:                        p50 ${portfolios.ms.toFixed(1)} ms`);
  } finally {
    await runtime.stop();
  }
}
