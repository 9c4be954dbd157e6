import { createHmac, randomBytes } from "node:crypto";
import { CosmosClient } from "@azure/cosmos";
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { adminToken, resultLine, startBenchRuntime, type BenchRuntime } from "./harness";
import { isinFor, post, withPeakRss } from "./fixtures";

/** BENCH_WEBHOOK_EVENTS shortens a run while investigating; the benchmark's figure is for 10,000. */
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const WEBHOOKS = 2;
const DELIVERIES = EVENTS * WEBHOOKS;
/** The raw sender's concurrency: the queue host's concurrent handlers (host.json maxConcurrentCalls). */
const CONCURRENCY = 32;
const TARGET_RATE = 500;
const TARGET_RATIO = 0.5;

interface Receiver {
  url: string;
  server: Server;
  /** Arrivals of transaction.settled, by webhook-id. */
  seen: Map<string, number>;
  latencies: number[];
  lastAt: number;
  firstEventAt: number;
  raw: number;
}

/** A loopback receiver that verifies nothing, counts, and answers 200. */
async function receiver(): Promise<Receiver> {
  const r: Receiver = { url: "", server: undefined as unknown as Server, seen: new Map(), latencies: [], lastAt: 0, firstEventAt: Number.POSITIVE_INFINITY, raw: 0 };
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      if (req.headers["x-bench-raw"] !== undefined) r.raw++;
      else {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: string; timestamp: string };
        if (body.event === "transaction.settled") {
          const id = String(req.headers["webhook-id"]);
          r.seen.set(id, (r.seen.get(id) ?? 0) + 1);
          const at = Date.parse(body.timestamp);
          r.firstEventAt = Math.min(r.firstEventAt, at);
          r.latencies.push(now - at);
          r.lastAt = Math.max(r.lastAt, now);
        }
      }
      res.writeHead(200).end();
    });
  });
  r.server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
  return r;
}

/** 20,000 signed POSTs straight from this process, CONCURRENCY at a time, over keep-alive connections. */
async function rawRate(receivers: Receiver[], payload: string, secret: Buffer): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < DELIVERIES) {
        const i = next++;
        const target = new URL(receivers[i % receivers.length]!.url);
        const id = `msg_raw_${i}`;
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = createHmac("sha256", secret).update(`${id}.${timestamp}.${payload}`).digest("base64");
        const headers = { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}`, "x-bench-raw": "1" };
        await new Promise<void>((resolve, reject) => {
          const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers, agent }, (res) => {
            res.resume().on("end", resolve);
          });
          req.on("error", reject);
          req.end(payload);
        });
      }
    }),
  );
  agent.destroy();
  return DELIVERIES / ((performance.now() - started) / 1000);
}

function postWithoutTimeout(url: string, token: string, body: unknown): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown, ms: performance.now() - started }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** When the first transaction.settled entry was written to the outbox (its `appendedAt`). */
async function firstAppended(runtime: BenchRuntime): Promise<number> {
  const cosmos = new CosmosClient({ endpoint: runtime.cosmosEndpoint, key: runtime.cosmosKey, connectionPolicy: { enableEndpointDiscovery: false } });
  try {
    const { resources } = await cosmos
      .database(runtime.database)
      .container("events")
      .items.query<string>("SELECT TOP 1 VALUE c.appendedAt FROM c WHERE c.event = 'transaction.settled' ORDER BY c.appendedAt")
      .fetchAll();
    if (resources[0] === undefined) throw new Error("no transaction.settled entry in the outbox");
    return Date.parse(resources[0]);
  } finally {
    cosmos.dispose();
  }
}

const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

/**
 * 10,000 settled transactions in one import → 10,000 transaction.settled events → 20,000 signed
 * deliveries to two loopback receivers, end to end through the outbox relay, the events queue, the
 * fan-out and the deliveries queue; against 20,000 signed POSTs sent straight from one process.
 * Targets: ≥ 500 deliveries/s and ≥ 0.5 × the raw rate.
 */
export async function benchWebhookDispatch(): Promise<boolean> {
  const receivers = await Promise.all(Array.from({ length: WEBHOOKS }, () => receiver()));
  const runtime = await startBenchRuntime(
    { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", OUTBOX_RELAY_SCHEDULE: "* * * * * *", DELIVERIES_SWEEP_SCHEDULE: "*/10 * * * * *" },
    // BENCH_CPU_PROFILE=<dir> writes a CPU profile of the runtime process (while investigating).
    process.env.BENCH_CPU_PROFILE === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`],
  );
  try {
    const token = await adminToken(runtime.baseUrl);
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    for (const r of receivers) {
      const created = await post(runtime.baseUrl, token, "/api/v1/settings/webhooks", { url: r.url, events: ["transaction.settled"], secret, description: "bench" });
      if (created.status !== 201) throw new Error(`webhook creation failed (${created.status}): ${JSON.stringify(created.body)}`);
    }
    const portfolio = await post(runtime.baseUrl, token, "/api/v1/portfolios", { code: `BENCH-WH-${Date.now()}`, name: "Webhook bench", clientId: "bench", baseCurrency: "EUR", type: "standard" });
    if (portfolio.status !== 201) throw new Error(`portfolio creation failed: ${JSON.stringify(portfolio.body)}`);
    const portfolioId = (portfolio.body as { data: { id: string } }).data.id;
    const isin = isinFor(900_001);
    await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities: [{ isin, name: "Webhook bench security", assetClass: "equity", currency: "EUR" }] });
    const transactions = Array.from({ length: EVENTS }, (_, i) => ({
      externalId: `wh-bench-${i}`,
      portfolioId,
      isin,
      type: "buy",
      status: "settled",
      tradeDate: "2024-03-01",
      settlementDate: "2024-03-05",
      quantity: 1 + (i % 50),
      price: 10,
      currency: "EUR",
    }));

    const { result, peakMb } = await withPeakRss(runtime.pid, async () => {
      const started = Date.now();
      // node:http, not fetch: fetch gives up on an answer after 300 s, and the import shares two cores with the pipeline.
      const imported = await postWithoutTimeout(`${runtime.baseUrl}/api/v1/import/transactions`, token, { transactions });
      if (imported.status !== 200) throw new Error(`import failed (${imported.status}): ${JSON.stringify(imported.body).slice(0, 500)}`);
      const deadline = Date.now() + 10 * 60_000;
      const delivered = (): number => receivers.reduce((n, r) => n + r.seen.size, 0);
      let shown = Date.now();
      while (delivered() < DELIVERIES && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        if (Date.now() - shown >= 5000) {
          shown = Date.now();
          console.error(`  … ${delivered()} of ${DELIVERIES} delivered after ${((shown - started) / 1000).toFixed(0)} s`);
        }
      }
      return { importMs: imported.ms, started, delivered: delivered() };
    });
    if (result.delivered < DELIVERIES) throw new Error(`only ${result.delivered} of ${DELIVERIES} deliveries arrived within 10 minutes`);

    const firstEvent = await firstAppended(runtime);
    const last = Math.max(...receivers.map((r) => r.lastAt));
    const seconds = (last - firstEvent) / 1000;
    const rate = DELIVERIES / seconds;
    const latencies = receivers.flatMap((r) => r.latencies);
    const duplicates = receivers.reduce((n, r) => n + [...r.seen.values()].filter((c) => c > 1).length, 0);
    const samplePayload = JSON.stringify({ id: "msg_raw", event: "transaction.settled", timestamp: new Date().toISOString(), data: { transactionId: "x".repeat(36), portfolioId, securityId: `sec_${isin}`, settlementDate: "2024-03-05", quantity: 1, netAmount: 10, currency: "EUR" } });
    const raw = await rawRate(receivers, samplePayload, Buffer.from(secret.slice("whsec_".length), "base64"));
    const ratio = rate / raw;
    const met = rate >= TARGET_RATE && ratio >= TARGET_RATIO;

    console.log(`\n== Webhook dispatch: ${EVENTS.toLocaleString("en")} transaction.settled events × ${WEBHOOKS} webhooks = ${DELIVERIES.toLocaleString("en")} signed deliveries ==`);
    console.log(`import of ${EVENTS.toLocaleString("en")} settled transactions: ${(result.importMs / 1000).toFixed(2)} s`);
    console.log(`first event appended ${((firstEvent - Math.min(...receivers.map((r) => r.firstEventAt))) / 1000).toFixed(2)} s after the first transaction was settled (the import's writes come first)`);
    console.log(`end to end (first event appended → last delivery received): ${seconds.toFixed(2)} s → ${rate.toFixed(0)} deliveries/s (target ≥ ${TARGET_RATE})`);
    console.log(`event timestamp → delivery received: p50 ${(percentile(latencies, 0.5) / 1000).toFixed(2)} s, p99 ${(percentile(latencies, 0.99) / 1000).toFixed(2)} s`);
    console.log(`deliveries received more than once: ${duplicates}`);
    console.log(`peak RSS of the runtime process: ${peakMb.toFixed(0)} MB`);
    console.log(`raw: ${DELIVERIES.toLocaleString("en")} signed POSTs from one process, ${CONCURRENCY} at a time: ${raw.toFixed(0)} POSTs/s`);
    console.log(`ratio pipeline/raw: ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO}) → ${met ? "MET" : "NOT MET"}`);
    console.log(resultLine("webhook-dispatch", rate, raw, TARGET_RATIO));
    return met;
  } finally {
    await runtime.stop();
    for (const r of receivers) r.server.closeAllConnections();
    await Promise.all(receivers.map((r) => new Promise((resolve) => r.server.close(resolve))));
  }
}
