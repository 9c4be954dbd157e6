import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { QueueServiceClient } from "@azure/storage-queue";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, tokenFor, type Reply } from "./http";
import { ingestionEndpoint, type IngestionEndpoint, type TelemetryEnvelope } from "./ingestion-endpoint";
import { COSMOS_KEY, newIsin, uid } from "./investment-fixtures";
import { BOOTSTRAP, runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";
import { newWebhookSecret, WebhookReceiver } from "./webhook-receiver";

/** A caller's trace context: a new trace id, as a client that traces its own calls sends it. */
function callerTrace(): { traceId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` };
}

/** The trace id of a W3C traceparent header. */
const traceIdOfHeader = (header: string | string[] | undefined): string | undefined =>
  typeof header === "string" ? header.split("-")[1] : undefined;

/** The runtime's JSON log lines. */
function logLines(runtime: Runtime): Record<string, unknown>[] {
  return runtime
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/**
 * One W3C trace context across the asynchronous hops, with Application Insights on (its ingestion
 * endpoint a stand-in on loopback): the import request, the outbox entries it appends, the queue
 * messages, the fan-out, the webhook POSTs and their retries, and the valuation all carry the trace the
 * caller's `traceparent` started, in the telemetry sent (its operation id) and in the log lines; an
 * event published later by the relay still carries it. The webhook POSTs themselves carry no trace
 * header: the customer's endpoint is not told the service's trace ids.
 */
describe("one trace context across the asynchronous hops (Application Insights on)", () => {
  const data = tempDir("ids-trace-");
  const certs = tempDir("ids-trace-ca-");
  let endpoint: IngestionEndpoint;
  let runtime: Runtime;
  let base: string;
  let token: string;
  let cosmos: CosmosClient;
  const receiver = new WebhookReceiver();
  let portfolioId: string;
  let securityId: string;
  let isin: string;

  const post = (path: string, body: unknown, traceparent?: string): Promise<Reply> =>
    call("POST", path, { base, token, body, ...(traceparent !== undefined ? { headers: { traceparent } } : {}) });
  const settledTransaction = () => ({
    externalId: uid("T"),
    portfolioId,
    isin,
    type: "buy",
    status: "settled",
    tradeDate: "2024-02-01",
    settlementDate: "2024-02-05",
    quantity: 3,
    price: 10,
    currency: "EUR",
  });
  /** The envelopes sent with this operation id. */
  const telemetryOf = (traceId: string): TelemetryEnvelope[] =>
    endpoint.envelopes().filter((e) => e.tags?.["ai.operation.id"] === traceId);
  /** The requests of an operation: HTTP requests by URL, function invocations by name. */
  const requests = (traceId: string): string[] =>
    telemetryOf(traceId).flatMap((e) =>
      e.data?.baseType === "RequestData" ? [String(e.data.baseData?.url ?? e.data.baseData?.name)] : [],
    );
  /** The URLs an operation's HTTP dependencies called. */
  const dependencyUrls = (traceId: string): string[] =>
    telemetryOf(traceId).flatMap((e) =>
      e.data?.baseType === "RemoteDependencyData" && e.data.baseData?.type === "Http"
        ? [String(e.data.baseData.data)]
        : [],
    );
  /** The functions whose log lines carry this trace id. */
  const loggedFunctions = (traceId: string): string[] =>
    logLines(runtime).flatMap((l) => (l.traceId === traceId && typeof l.function === "string" ? [l.function] : []));
  /** The outbox entries stored with this trace id (the runtime is this file's own), by event name. */
  const outboxEntries = async (traceId: string): Promise<{ event: string; status: string }[]> =>
    (
      await cosmos
        .database("investment-data")
        .container("events")
        .items.query<{ event: string; status: string; traceparent?: string }>(
          "SELECT c.event, c.status, c.traceparent FROM c WHERE c.docType = 'outbox'",
        )
        .fetchAll()
    ).resources
      .filter((e) => traceIdOfHeader(e.traceparent) === traceId)
      .map(({ event, status }) => ({ event, status }))
      .sort((a, b) => a.event.localeCompare(b.event));

  beforeAll(async () => {
    endpoint = await ingestionEndpoint();
    writeFileSync(join(certs.path, "ca.pem"), endpoint.ca);
    await receiver.up();
    runtime = await startRuntime(
      await runtimeEnv(data.path, {
        APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=${endpoint.url}`,
        // The runtime trusts the stand-in endpoint's certificate; nothing turns TLS checks off.
        NODE_EXTRA_CA_CERTS: join(certs.path, "ca.pem"),
        // Every trace recorded: the distro's default rate limit (5 traces a second) is taken by the local
        // hosts' own queue and blob polls, which Azure's host does outside the app.
        OTEL_TRACES_SAMPLER: "always_on",
        LOG_LEVEL: "debug",
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        WEBHOOK_RETRY_SCHEDULE: "1,1",
        OUTBOX_RELAY_SCHEDULE: "* * * * * *",
        OUTBOX_RELAY_GRACE_SECONDS: "1",
      }),
    );
    base = runtime.baseUrl;
    token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, base);
    cosmos = new CosmosClient({
      endpoint: runtime.env.COSMOS_ENDPOINT ?? "",
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const secret = newWebhookSecret();
    receiver.secrets = [secret];
    const webhook = await post("/api/v1/settings/webhooks", {
      url: receiver.url,
      events: ["transaction.settled"],
      secret,
      description: "trace test",
    });
    expect(webhook.status, webhook.text).toBe(201);
    const portfolio = await post("/api/v1/portfolios", {
      code: uid("P"),
      name: "Traced portfolio",
      clientId: "trace-tests",
      baseCurrency: "EUR",
    });
    expect(portfolio.status, portfolio.text).toBe(201);
    portfolioId = portfolio.body.data.id as string;
    isin = newIsin();
    const securities = await post("/api/v1/import/securities", {
      securities: [{ isin, name: "Traced security", assetClass: "equity", currency: "EUR" }],
    });
    expect(securities.status, securities.text).toBe(200);
    securityId = `sec_${isin}`;
  }, 60_000);

  afterAll(async () => {
    cosmos?.dispose();
    await runtime?.stop();
    await receiver.down();
    await endpoint?.close();
    data.remove();
    certs.remove();
  }, 60_000);

  it("a settled transaction's webhook POST and its retry continue the import request's trace", async () => {
    const { traceId, traceparent } = callerTrace();
    // The first POST fails, so a `deliveries` message carries the retry to webhook-deliver.
    receiver.answer = (envelope, received) => ({
      status: received.filter((r) => r.envelope.id === envelope.id).length === 1 ? 500 : 200,
    });
    const before = receiver.received.length;
    const imported = await post("/api/v1/import/transactions", { transactions: [settledTransaction()] }, traceparent);
    expect(imported.status, imported.text).toBe(200);
    // The request's events are stored with its trace.
    expect((await outboxEntries(traceId)).map((e) => e.event)).toEqual([
      "refresh_job.completed",
      "transaction.settled",
    ]);

    const posts = await vi.waitFor(
      () => {
        const settled = receiver.received.slice(before).filter((r) => r.envelope.event === "transaction.settled");
        expect(settled.map((r) => r.verifiedWith.length)).toEqual([1, 1]);
        return settled;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(posts.map((r) => r.envelope.data.portfolioId)).toEqual([portfolioId, portfolioId]);
    // The customer's endpoint learns nothing of the service's trace: no traceparent (nor tracestate) reaches it.
    for (const received of posts) {
      expect(received.headers.traceparent).toBeUndefined();
      expect(received.headers.tracestate).toBeUndefined();
    }

    await vi.waitFor(
      () => {
        expect(requests(traceId)).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/\/api\/v1\/import\/transactions$/),
            "events-fan-out",
            "webhook-deliver",
          ]),
        );
        // The two POSTs to the receiver, and the Cosmos DB and queue calls between them.
        expect(dependencyUrls(traceId).filter((url) => url === receiver.url)).toHaveLength(2);
        expect(dependencyUrls(traceId).some((url) => url.includes("/devstoreaccount1/deliveries/messages"))).toBe(true);
        expect(dependencyUrls(traceId).some((url) => url.includes("/colls/deliveries/"))).toBe(true);
      },
      { timeout: 20_000, interval: 250 },
    );
    expect(loggedFunctions(traceId)).toEqual(
      expect.arrayContaining(["import-post", "events-fan-out", "webhook-deliver"]),
    );
  }, 40_000);

  it("a positions import's valuation continues the import request's trace", async () => {
    const { traceId, traceparent } = callerTrace();
    const imported = await post(
      "/api/v1/import/positions",
      { positions: [{ portfolioId, securityId, date: "2024-03-01", quantity: 7 }] },
      traceparent,
    );
    expect(imported.status, imported.text).toBe(200);
    await vi.waitFor(
      () => {
        expect(requests(traceId)).toEqual(
          expect.arrayContaining([expect.stringMatching(/\/api\/v1\/import\/positions$/), "valuations-run"]),
        );
        expect(loggedFunctions(traceId)).toEqual(expect.arrayContaining(["import-post", "valuations-run"]));
      },
      { timeout: 20_000, interval: 250 },
    );
  }, 30_000);

  it("an event the relay publishes later (the bus was unreachable) still carries the request's trace", async () => {
    const { traceId, traceparent } = callerTrace();
    receiver.answer = () => ({ status: 200 });
    const events = QueueServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "").getQueueClient(
      "events",
    );
    // Every publish fails until the queue is back: the events stay pending in the outbox.
    await events.delete();
    const before = receiver.received.length;
    const imported = await post("/api/v1/import/transactions", { transactions: [settledTransaction()] }, traceparent);
    expect(imported.status, imported.text).toBe(200);
    expect(await outboxEntries(traceId)).toEqual([
      { event: "refresh_job.completed", status: "pending" },
      { event: "transaction.settled", status: "pending" },
    ]);

    await vi.waitFor(() => events.createIfNotExists(), { timeout: 10_000, interval: 250 });
    const delivered = await vi.waitFor(
      () => {
        const settled = receiver.received.slice(before).filter((r) => r.envelope.event === "transaction.settled");
        expect(settled).toHaveLength(1);
        return settled[0];
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(delivered?.verifiedWith).toHaveLength(1);
    // Marked once the bus took them (the fan-out may deliver before the relay marks them).
    await vi.waitFor(
      async () => expect((await outboxEntries(traceId)).map((e) => e.status)).toEqual(["published", "published"]),
      { timeout: 10_000, interval: 250 },
    );
    await vi.waitFor(() => expect(requests(traceId)).toEqual(expect.arrayContaining(["events-fan-out"])), {
      timeout: 20_000,
      interval: 250,
    });
    expect(requests(traceId)).not.toContain("outbox-relay");
    expect(loggedFunctions(traceId)).toContain("events-fan-out");
  }, 40_000);
});
