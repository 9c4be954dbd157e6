import autocannon from "autocannon";
import { CosmosClient } from "@azure/cosmos";
import { adminToken, closedLoop, resultLine, type BenchRuntime } from "./harness";

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/**
 * Authenticated GET /api/v1/portfolios/{id} through the local runtime against the raw point-read rate of
 * the Cosmos stand-in, both at 32 concurrent requests. Target: API ≥ 1/3 of raw, no errors, no non-2xx.
 */
export async function benchApiRead(runtime: BenchRuntime): Promise<boolean> {
  const token = await adminToken(runtime.baseUrl);
  const created = await fetch(`${runtime.baseUrl}/api/v1/portfolios`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Bench", code: `BENCH-${Date.now()}`, clientId: "bench", baseCurrency: "EUR" }),
  });
  const { data } = (await created.json()) as { data: { id: string } };

  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const item = cosmos.database(runtime.database).container("portfolios").item(data.id, data.id);
  await item.read(); // warm up
  const raw = await closedLoop(CONNECTIONS, SECONDS, async () => {
    const { statusCode } = await item.read();
    if (statusCode !== 200) throw new Error(`status ${statusCode}`);
  });
  cosmos.dispose();

  const url = `${runtime.baseUrl}/api/v1/portfolios/${data.id}`;
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers: { Authorization: `Bearer ${token}` } }); // warm up
  const api = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { Authorization: `Bearer ${token}` },
  });

  const ratio = api.requests.average / raw.rate;
  const clean = api.errors === 0 && api.non2xx === 0 && api.timeouts === 0 && raw.errors === 0;
  const met = ratio >= 1 / 3 && clean;
  console.log("\n== API read: GET /api/v1/portfolios/{id}, 32 connections ==");
  console.log(
    `raw Cosmos stand-in point reads (SDK, one process): ${raw.rate.toFixed(0)}/s  p50 ${raw.p50.toFixed(2)} ms  p99 ${raw.p99.toFixed(2)} ms  errors ${raw.errors}`,
  );
  console.log(
    `API (auth + rate limit + read):                     ${api.requests.average.toFixed(0)}/s  p50 ${api.latency.p50} ms  p99 ${api.latency.p99} ms  errors ${api.errors}  non-2xx ${api.non2xx}  timeouts ${api.timeouts}`,
  );
  console.log(
    `ratio API/raw: ${ratio.toFixed(3)} (target ≥ 0.333, no errors, no non-2xx) → ${met ? "MET" : "NOT MET"}`,
  );
  console.log(resultLine("api-read", api.requests.average, raw.rate, 0.333));
  return met;
}
