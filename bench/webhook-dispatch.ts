import { randomBytes } from "node:crypto";
import { CosmosClient, type Database } from "@azure/cosmos";
import { request } from "node:http";
import { adminToken, resultLine, startBenchRuntime } from "./harness";
import { isinFor, post, withPeakRss } from "./fixtures";
import { benchReceiver, closeReceivers, percentile, rawPostRate, type BenchReceiver } from "./webhook-receivers";

/** BENCH_WEBHOOK_EVENTS shortens a run while investigating; the benchmark's figure is for 10,000. */
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const WEBHOOKS = 2;
const DELIVERIES = EVENTS * WEBHOOKS;
/** The baselines' concurrency: the queue host's concurrent handlers (host.json maxConcurrentCalls). */
const CONCURRENCY = 32;
const TARGET_RATIO = 0.5;
/** Single events sent one at a time on the idle service, and the p99 (seconds) their deliveries must stay under. */
const LATENCY_SAMPLES = 50;
const TARGET_LATENCY_SECONDS = 1;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function postWithoutTimeout(
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown,
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** When the first transaction.settled entry was written to the outbox (its `appendedAt`). */
async function firstAppended(database: Database): Promise<number> {
  const { resources } = await database
    .container("events")
    .items.query<string>(
      "SELECT TOP 1 VALUE c.appendedAt FROM c WHERE c.event = 'transaction.settled' ORDER BY c.appendedAt",
    )
    .fetchAll();
  if (resources[0] === undefined) throw new Error("no transaction.settled entry in the outbox");
  return Date.parse(resources[0]);
}

/**
 * The ceiling of a durable delivery: `count` point writes (creates) of documents shaped and sized like
 * a stored delivery, `CONCURRENCY` at a time, into a container of the same Cosmos stand-in partitioned
 * like `deliveries`. Returns writes/s and the document size.
 */
async function pointWriteRate(database: Database, count: number): Promise<{ rate: number; bytes: number }> {
  const { resources } = await database
    .container("deliveries")
    .items.query<Record<string, unknown>>(
      "SELECT TOP 1 * FROM c WHERE c.docType = 'delivery' AND c.event = 'transaction.settled'",
    )
    .fetchAll();
  const stored = resources[0];
  if (stored === undefined) throw new Error("no delivery record to copy");
  const { _rid: _r, _self: _s, _etag: _e, _attachments: _a, _ts: _t, ...template } = stored;
  const { container } = await database.containers.createIfNotExists({
    id: "bench-point-writes",
    partitionKey: { paths: ["/webhookId"] },
  });
  const webhookIds = [`${String(template.webhookId)}_a`, `${String(template.webhookId)}_b`];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        await container.items.create({ ...template, id: `bench_${i}`, webhookId: webhookIds[i % webhookIds.length] });
      }
    }),
  );
  return { rate: count / ((performance.now() - started) / 1000), bytes: Buffer.byteLength(JSON.stringify(template)) };
}

/** One settled transaction at a time on the idle service: event timestamp → arrival, in ms, of each delivery. */
async function idleLatencies(
  baseUrl: string,
  token: string,
  portfolioId: string,
  isin: string,
  receivers: readonly BenchReceiver[],
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await sleep(300);
    const before = receivers.map((r) => r.latencies.length);
    const transaction = {
      externalId: `wh-idle-${i}`,
      portfolioId,
      isin,
      type: "buy",
      status: "settled",
      tradeDate: "2024-03-01",
      settlementDate: "2024-03-05",
      quantity: 1,
      price: 10,
      currency: "EUR",
    };
    const imported = await post(baseUrl, token, "/api/v1/import/transactions", { transactions: [transaction] });
    if (imported.status !== 200)
      throw new Error(`import failed (${imported.status}): ${JSON.stringify(imported.body)}`);
    const deadline = Date.now() + 30_000;
    while (receivers.some((r, n) => r.latencies.length === before[n]) && Date.now() < deadline) await sleep(5);
    receivers.forEach((r, n) => latencies.push(...r.latencies.slice(before[n])));
  }
  return latencies;
}

/**
 * 10,000 settled transactions in one import → 10,000 transaction.settled events → 20,000 signed
 * deliveries to two loopback receivers, end to end through the outbox, the events queue, the fan-out
 * and (for retries) the deliveries queue; against the store's raw rate of one point write per delivery
 * in the same run (a durable delivery needs at least one). Then single events on the idle service:
 * event → delivery at p99. Targets: ≥ 0.5 × the point-write rate with nothing lost or doubled, p99 < 1 s.
 */
export async function benchWebhookDispatch(): Promise<boolean> {
  const receivers = await Promise.all(Array.from({ length: WEBHOOKS }, () => benchReceiver()));
  const runtime = await startBenchRuntime({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    OUTBOX_RELAY_SCHEDULE: "* * * * * *",
    DELIVERIES_SWEEP_SCHEDULE: "*/10 * * * * *",
  });
  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const database = cosmos.database(runtime.database);
  try {
    const token = await adminToken(runtime.baseUrl);
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    for (const r of receivers) {
      const created = await post(runtime.baseUrl, token, "/api/v1/settings/webhooks", {
        url: r.url,
        events: ["transaction.settled"],
        secret,
        description: "bench",
      });
      if (created.status !== 201)
        throw new Error(`webhook creation failed (${created.status}): ${JSON.stringify(created.body)}`);
    }
    const portfolio = await post(runtime.baseUrl, token, "/api/v1/portfolios", {
      code: `BENCH-WH-${Date.now()}`,
      name: "Webhook bench",
      clientId: "bench",
      baseCurrency: "EUR",
      type: "standard",
    });
    if (portfolio.status !== 201) throw new Error(`portfolio creation failed: ${JSON.stringify(portfolio.body)}`);
    const portfolioId = (portfolio.body as { data: { id: string } }).data.id;
    const isin = isinFor(900_001);
    await post(runtime.baseUrl, token, "/api/v1/import/securities", {
      securities: [{ isin, name: "Webhook bench security", assetClass: "equity", currency: "EUR" }],
    });
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

    const delivered = (): number => receivers.reduce((n, r) => n + r.seen.size, 0);
    const { result, peakMb } = await withPeakRss(runtime.pid, async () => {
      const started = Date.now();
      // node:http, not fetch: fetch gives up on an answer after 300 s, and the import shares two cores with the pipeline.
      const imported = await postWithoutTimeout(`${runtime.baseUrl}/api/v1/import/transactions`, token, {
        transactions,
      });
      if (imported.status !== 200)
        throw new Error(`import failed (${imported.status}): ${JSON.stringify(imported.body).slice(0, 500)}`);
      const answeredAt = Date.now();
      const deadline = Date.now() + 10 * 60_000;
      let shown = Date.now();
      while (delivered() < DELIVERIES && Date.now() < deadline) {
        await sleep(100);
        if (Date.now() - shown >= 5000) {
          shown = Date.now();
          console.error(
            `  … ${delivered()} of ${DELIVERIES} delivered after ${((shown - started) / 1000).toFixed(0)} s`,
          );
        }
      }
      return { importMs: imported.ms, answeredAt, delivered: delivered() };
    });
    if (result.delivered < DELIVERIES)
      throw new Error(`only ${result.delivered} of ${DELIVERIES} deliveries arrived within 10 minutes`);
    const firstEvent = await firstAppended(database);
    const last = Math.max(...receivers.map((r) => r.lastAt));
    const seconds = (last - firstEvent) / 1000;
    const rate = DELIVERIES / seconds;
    const burstLatencies = receivers.flatMap((r) => r.latencies);
    await sleep(3_000); // a late duplicate would show by now
    const doubled = receivers.reduce((n, r) => n + [...r.seen.values()].filter((c) => c > 1).length, 0);
    const lost = DELIVERIES - delivered();

    const idle = await idleLatencies(runtime.baseUrl, token, portfolioId, isin, receivers);
    const idleP99 = percentile(idle, 0.99) / 1000;
    const writes = await pointWriteRate(database, DELIVERIES);
    const samplePayload = JSON.stringify({
      id: "msg_raw",
      event: "transaction.settled",
      timestamp: new Date().toISOString(),
      data: {
        transactionId: "x".repeat(36),
        portfolioId,
        securityId: `sec_${isin}`,
        settlementDate: "2024-03-05",
        quantity: 1,
        netAmount: 10,
        currency: "EUR",
      },
    });
    const rawPosts = await rawPostRate(
      receivers,
      DELIVERIES,
      CONCURRENCY,
      samplePayload,
      Buffer.from(secret.slice("whsec_".length), "base64"),
    );
    const ratio = rate / writes.rate;
    const met = ratio >= TARGET_RATIO && lost === 0 && doubled === 0 && idleP99 < TARGET_LATENCY_SECONDS;

    console.log(
      `\n== Webhook dispatch: ${EVENTS.toLocaleString("en")} transaction.settled events × ${WEBHOOKS} webhooks = ${DELIVERIES.toLocaleString("en")} signed deliveries ==`,
    );
    console.log(
      `import of ${EVENTS.toLocaleString("en")} settled transactions: ${(result.importMs / 1000).toFixed(2)} s`,
    );
    console.log(
      `end to end (first event appended → last delivery received): ${seconds.toFixed(2)} s → ${rate.toFixed(0)} deliveries/s`,
    );
    console.log(
      `the import answered (its events all published) ${((result.answeredAt - firstEvent) / 1000).toFixed(2)} s after the first event was appended`,
    );
    console.log(
      `event timestamp → delivery received, under the burst: p50 ${(percentile(burstLatencies, 0.5) / 1000).toFixed(2)} s, p99 ${(percentile(burstLatencies, 0.99) / 1000).toFixed(2)} s`,
    );
    console.log(`lost: ${lost}; received more than once: ${doubled}`);
    console.log(`peak RSS of the runtime process: ${peakMb.toFixed(0)} MB`);
    console.log(
      `baseline: ${DELIVERIES.toLocaleString("en")} point writes of a ${writes.bytes}-byte delivery document into the same Cosmos stand-in, ${CONCURRENCY} at a time: ${writes.rate.toFixed(0)} writes/s`,
    );
    console.log(`ratio deliveries/point writes: ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO})`);
    console.log(
      `for reference: ${DELIVERIES.toLocaleString("en")} signed POSTs straight from one process, ${CONCURRENCY} at a time: ${rawPosts.toFixed(0)} POSTs/s`,
    );
    console.log(
      `idle: ${LATENCY_SAMPLES} single events one at a time, event timestamp → delivery received: p50 ${(percentile(idle, 0.5) / 1000).toFixed(3)} s, p99 ${idleP99.toFixed(3)} s (target < ${TARGET_LATENCY_SECONDS} s)`,
    );
    console.log(`→ ${met ? "MET" : "NOT MET"}`);
    console.log(resultLine("webhook-dispatch", rate, writes.rate, TARGET_RATIO));
    console.log(resultLine("webhook-latency", idleP99, TARGET_LATENCY_SECONDS, TARGET_LATENCY_SECONDS));
    return met;
  } finally {
    cosmos.dispose();
    await runtime.stop();
    await closeReceivers(receivers);
  }
}
