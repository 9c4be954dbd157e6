import { CosmosClient } from "@azure/cosmos";
import { bulkUpsert } from "../shared/adapters/cosmos/bulk";
import { adminToken, resultLine, type BenchRuntime } from "./harness";
import { dateAfter, isinFor, post, withPeakRss } from "./fixtures";

const SECURITIES = 1000;
const DATES = 100; // 1,000 securities × 100 dates = 100,000 prices
const BATCH = 10_000;

interface PriceRecord {
  isin: string;
  date: string;
  price: number;
  currency: string;
  type: "close";
  source: string;
}

function pricesFor(dayOffset: number): PriceRecord[] {
  const out: PriceRecord[] = [];
  for (let d = 0; d < DATES; d++) {
    for (let s = 0; s < SECURITIES; s++) {
      // A gentle walk: no day-on-day move comes near the price-jump threshold.
      out.push({
        isin: isinFor(s),
        date: dateAfter("2023-01-02", dayOffset + d),
        price: Math.round((100 + s / 10 + d * 0.05) * 100) / 100,
        currency: "EUR",
        type: "close",
        source: "bench",
      });
    }
  }
  return out;
}

/**
 * 100,000 prices through POST /api/v1/import/prices in batches of 10,000, against bulk upserts of the
 * same documents straight into the Cosmos stand-in with the SDK. Target: API ≥ 0.5 × raw.
 */
export async function benchImport(runtime: BenchRuntime): Promise<boolean> {
  const token = await adminToken(runtime.baseUrl);
  const securities = Array.from({ length: SECURITIES }, (_, s) => ({
    isin: isinFor(s),
    name: `Bench security ${s}`,
    assetClass: "equity",
    currency: "EUR",
  }));
  const created = await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities });
  if (created.status !== 200) throw new Error(`securities import failed: ${JSON.stringify(created.body)}`);

  // Raw: the same documents (id, partition key and fields as the service stores them), SDK bulk upserts.
  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await cosmos.databases.createIfNotExists({ id: "bench-raw" });
  const { container } = await database.containers.createIfNotExists({
    id: "prices",
    partitionKey: { paths: ["/securityId"] },
  });
  const rawDocs = pricesFor(0).map((p) => ({
    ...p,
    id: `${p.date}|${p.type}|${p.source}`,
    securityId: `sec_${p.isin}`,
    docType: "price",
    updatedAt: new Date().toISOString(),
    // The current document carries its version, as the service stores it (no other write for a new price).
    recorded: {
      version: 1,
      at: new Date().toISOString(),
      by: "bench",
      requestId: "bench-request",
      jobId: "job_bench",
      change: "created",
    },
  }));
  const rawStarted = performance.now();
  // SDK bulk calls carry at most 100 operations per partition key range; 8 run at once, as in the service.
  for (let i = 0; i < rawDocs.length; i += BATCH) await bulkUpsert(container, rawDocs.slice(i, i + BATCH));
  const rawSeconds = (performance.now() - rawStarted) / 1000;
  const rawRate = rawDocs.length / rawSeconds;
  await database.delete();
  cosmos.dispose();

  const records = pricesFor(0);
  const { result, peakMb } = await withPeakRss(runtime.pid, async () => {
    const started = performance.now();
    const times: number[] = [];
    for (let i = 0; i < records.length; i += BATCH) {
      const reply = await post(runtime.baseUrl, token, "/api/v1/import/prices", {
        prices: records.slice(i, i + BATCH),
      });
      if (reply.status !== 200)
        throw new Error(`import failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
      times.push(reply.ms);
    }
    return { seconds: (performance.now() - started) / 1000, times };
  });
  const apiRate = records.length / result.seconds;

  // The same payload again: everything unchanged, nothing rewritten.
  const again = await post(runtime.baseUrl, token, "/api/v1/import/prices", { prices: records.slice(0, BATCH) });
  const ratio = apiRate / rawRate;
  const met = ratio >= 0.5;
  console.log("\n== Import: 100,000 prices, batches of 10,000 ==");
  console.log(`raw SDK bulk upserts into the stand-in:  ${rawRate.toFixed(0)} records/s (${rawSeconds.toFixed(2)} s)`);
  console.log(
    `API POST /api/v1/import/prices:          ${apiRate.toFixed(0)} records/s (${result.seconds.toFixed(2)} s; per batch ${result.times.map((t) => (t / 1000).toFixed(2)).join(", ")} s)`,
  );
  console.log(
    `re-import of one unchanged batch:        ${(again.ms / 1000).toFixed(2)} s → ${JSON.stringify((again.body as { data?: unknown }).data)}`,
  );
  console.log(`peak RSS of the service process during the import: ${peakMb.toFixed(0)} MB`);
  console.log(`ratio API/raw: ${ratio.toFixed(3)} (target ≥ 0.5) → ${met ? "MET" : "NOT MET"}`);
  console.log(resultLine("import-prices", apiRate, rawRate, 0.5));
  return met;
}
