import autocannon from "autocannon";
import { CosmosClient } from "@azure/cosmos";
import { adminToken, closedLoop, resultLine, type BenchRuntime } from "./harness";

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/**
 * Authenticated GET /api/v1/portfolios/{id} through the local runtime against the raw point-read rate of
 * the Cosmos stand-in, both at 32 concurrent requests. Target: API ≥ 1/3 of raw, no errors, no non-2xx.
 * Then the same read as at an instant the portfolio has changed since (a point read plus a query of its
 * versions), against the plain read of this run. Target: ≥ 0.5 of it.
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
  const asAtMet = await benchAsAtRead(runtime.baseUrl, token, data.id, api.requests.average);
  return met && asAtMet;
}

const VERSIONS = 20;

/** GET /api/v1/portfolios/{id}?asAt= at 32 connections, the instant in the middle of 20 versions. */
async function benchAsAtRead(baseUrl: string, token: string, id: string, plainRate: number): Promise<boolean> {
  const instants: string[] = [];
  for (let v = 1; v <= VERSIONS; v++) {
    const renamed = await fetch(`${baseUrl}/api/v1/portfolios/${id}`, {
      method: "PATCH",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: `Bench v${v}` }),
    });
    if (renamed.status !== 200) throw new Error(`rename failed: ${renamed.status}`);
    instants.push(new Date().toISOString());
  }
  const asAt = instants[VERSIONS / 2] ?? "";
  const url = `${baseUrl}/api/v1/portfolios/${id}?asAt=${encodeURIComponent(asAt)}`;
  const check = (await (await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
    data: { name: string };
  };
  if (!/^Bench v\d+$/.test(check.data.name) || check.data.name === `Bench v${VERSIONS}`)
    throw new Error(`the as-at read did not answer an earlier version: ${check.data.name}`);
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers: { Authorization: `Bearer ${token}` } }); // warm up
  const read = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { Authorization: `Bearer ${token}` },
  });
  const ratio = read.requests.average / plainRate;
  const clean = read.errors === 0 && read.non2xx === 0 && read.timeouts === 0;
  const met = ratio >= 0.5 && clean;
  console.log(
    `\n== API read as at an instant: GET /api/v1/portfolios/{id}?asAt=, ${VERSIONS} versions since, 32 connections ==`,
  );
  console.log(
    `API as at (${check.data.name}): ${read.requests.average.toFixed(0)}/s  p50 ${read.latency.p50} ms  p99 ${read.latency.p99} ms  errors ${read.errors}  non-2xx ${read.non2xx}  timeouts ${read.timeouts}`,
  );
  console.log(`ratio as-at/plain read: ${ratio.toFixed(3)} (target ≥ 0.5, no errors) → ${met ? "MET" : "NOT MET"}`);
  console.log(resultLine("api-read-asat", read.requests.average, plainRate, 0.5));
  return met;
}
