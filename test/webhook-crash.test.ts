import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CosmosClient } from "@azure/cosmos";
import { afterAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../local/launch";
import { startDurableStandIn } from "../local/cosmos/durable-stand-in";
import { adminToken, call } from "./http";
import { COSMOS_KEY, newIsin } from "./investment-fixtures";
import { childrenGone } from "./children-gone";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";
import { newWebhookSecret } from "./webhook-receiver";

const EVENTS = 1_000;
const WEBHOOKS = 2;
const DELIVERIES = EVENTS * WEBHOOKS;
/** The receiver answers this many POSTs at a time, each after PACE_MS: about 300 deliveries/s at most. */
const ANSWERING = 16;
const PACE_MS = 50;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A webhook endpoint that counts arrivals of transaction.settled per webhook-id and answers 200 at a
 * steady pace (a real endpoint has a finite rate, so a crash finds deliveries queued and in flight).
 */
class CountingReceiver {
  readonly arrivals = new Map<string, number[]>();
  /** The webhook-ids it answered 2xx, each once. */
  readonly accepted = new Set<string>();
  onArrival: (distinct: number) => void = () => {};
  /** The status to answer the `n`th arrival (1-based) of a delivery with. */
  status: (n: number) => number = () => 200;
  private answering = 0;
  private readonly waiting: (() => void)[] = [];
  private server: Server | undefined;
  url = "";

  async up(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: string };
        let status = 200;
        if (envelope.event === "transaction.settled") {
          const id = String(req.headers["webhook-id"]);
          const at = [...(this.arrivals.get(id) ?? []), Date.now()];
          this.arrivals.set(id, at);
          status = this.status(at.length);
          if (status < 300) this.accepted.add(id);
          this.onArrival(this.arrivals.size);
        }
        void this.paced(() => res.writeHead(status).end());
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async down(): Promise<void> {
    const server = this.server;
    if (server === undefined) return; // never started (its test skipped)
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private async paced(answer: () => void): Promise<void> {
    if (this.answering >= ANSWERING) await new Promise<void>((r) => this.waiting.push(r));
    this.answering++;
    await sleep(PACE_MS);
    answer();
    this.answering--;
    this.waiting.shift()?.();
  }
}

/** Reads the store a killed runtime left (its Cosmos data folder). */
async function atRest<T>(dataDir: string, container: string, query: string): Promise<T[]> {
  const port = await freePort();
  const standIn = await startDurableStandIn({ port, dir: join(dataDir, "cosmos") });
  const cosmos = new CosmosClient({
    endpoint: `http://127.0.0.1:${port}`,
    key: COSMOS_KEY,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  try {
    return (await cosmos.database("investment-data").container(container).items.query<T>(query).fetchAll()).resources;
  } finally {
    cosmos.dispose();
    await standIn.close();
  }
}

/**
 * Every queue message lost, as when a queue dies with the process that held it: Azurite's queue
 * store is removed while the runtime is down (the next start provisions empty queues).
 */
function loseQueueMessages(dataDir: string): void {
  const dir = join(dataDir, "azurite");
  for (const name of readdirSync(dir).filter((n) => n.includes("queue")))
    rmSync(join(dir, name), { recursive: true, force: true });
}

/** Status of every delivery record, read from the store the killed runtime left (its Cosmos data folder). */
async function deliveriesAtRest(dataDir: string): Promise<Map<string, string>> {
  const port = await freePort();
  const standIn = await startDurableStandIn({ port, dir: join(dataDir, "cosmos") });
  const cosmos = new CosmosClient({
    endpoint: `http://127.0.0.1:${port}`,
    key: COSMOS_KEY,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  try {
    const { resources } = await cosmos
      .database("investment-data")
      .container("deliveries")
      .items.query<{ id: string; status: string }>(
        "SELECT c.id, c.status FROM c WHERE c.docType = 'delivery' AND c.event = 'transaction.settled'",
      )
      .fetchAll();
    return new Map(resources.map((d) => [d.id, d.status]));
  } finally {
    cosmos.dispose();
    await standIn.close();
  }
}

/**
 * At-least-once webhook delivery across a crash (#12): 1,000 settled transactions × 2 webhooks, the
 * runtime killed (`kill -9`) a third of the way through the deliveries, then started again on the same
 * data with the default sweep settings. Every delivery arrives; only those in flight at the kill (POSTed,
 * their outcome not yet recorded) may arrive twice; deliveries resume within seconds of the restart.
 */
describe("webhook deliveries across a crash", () => {
  const data = tempDir("ids-webhook-crash-");
  const runtimes: Runtime[] = [];
  const receiver = new CountingReceiver();
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    await receiver.down();
    data.remove();
  }, 60_000);

  it("a kill -9 mid-stream: nothing lost, only deliveries in flight at the kill sent twice, full rate again within seconds", async () => {
    await receiver.up();
    const env = await runtimeEnv(data.path, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    const first = await startRuntime(env);
    runtimes.push(first);
    let token = await adminToken(first.baseUrl);
    for (let i = 0; i < WEBHOOKS; i++) {
      const created = await call("POST", "/api/v1/settings/webhooks", {
        base: first.baseUrl,
        token,
        body: { url: receiver.url, events: ["transaction.settled"], secret: newWebhookSecret() },
      });
      expect(created.status, created.text).toBe(201);
    }
    const portfolio = await call("POST", "/api/v1/portfolios", {
      base: first.baseUrl,
      token,
      body: { code: `WHCRASH-${Date.now()}`, name: "Webhook crash", clientId: "crash", baseCurrency: "EUR" },
    });
    expect(portfolio.status, portfolio.text).toBe(201);
    const isin = newIsin();
    const security = await call("POST", "/api/v1/import/securities", {
      base: first.baseUrl,
      token,
      body: { securities: [{ isin, name: "Webhook crash security", assetClass: "equity", currency: "EUR" }] },
    });
    expect(security.status, security.text).toBe(200);

    // Killed once a third of the deliveries arrived and the import has answered (its events are all
    // published, so what follows is the delivery side's recovery, not the outbox relay's).
    let imported = false;
    let killing: Promise<void> | undefined;
    const killAt = Math.floor(DELIVERIES / 3);
    const killIfDue = (distinct: number): void => {
      if (killing === undefined && imported && distinct >= killAt) killing = first.kill();
    };
    receiver.onArrival = killIfDue;
    const transactions = Array.from({ length: EVENTS }, (_, i) => ({
      externalId: `wh-crash-${i}`,
      portfolioId: portfolio.body.data.id,
      isin,
      type: "buy",
      status: "settled",
      tradeDate: "2024-03-01",
      settlementDate: "2024-03-05",
      quantity: 1 + (i % 7),
      price: 10,
      currency: "EUR",
    }));
    const reply = await call("POST", "/api/v1/import/transactions", {
      base: first.baseUrl,
      token,
      body: { transactions },
    });
    expect(reply.status, reply.text).toBe(200);
    imported = true;
    killIfDue(receiver.arrivals.size);
    // Left a loop: with vi.waitFor here every delivery arrived before the kill (2 runs of 2), with this loop none did (3 of 3); not yet understood.
    const deadline = Date.now() + 60_000;
    while (killing === undefined) {
      if (Date.now() > deadline)
        throw new Error(`only ${receiver.arrivals.size} deliveries arrived:\n${first.output()}`);
      await sleep(20);
    }
    await killing;
    receiver.onArrival = () => {};
    const arrivedBeforeKill = new Set(receiver.arrivals.keys());
    expect(arrivedBeforeKill.size).toBeLessThan(DELIVERIES);
    await childrenGone(data.path);

    // In flight at the kill: POSTed (the receiver has it) while its record does not say so yet.
    const atKill = await deliveriesAtRest(data.path);
    const inFlight = new Set([...arrivedBeforeKill].filter((id) => atKill.get(id) !== "succeeded"));

    const second = await startRuntime(env);
    runtimes.push(second);
    const restarted = Date.now();
    token = await adminToken(second.baseUrl);
    const newArrivals = (): number[] =>
      [...receiver.arrivals].filter(([id]) => !arrivedBeforeKill.has(id)).map(([, at]) => at[0] ?? 0);
    // Waits up to 45 s from the restart; the assertions below say how far it got.
    await vi
      .waitFor(() => expect(receiver.arrivals.size).toBe(DELIVERIES), {
        timeout: Math.max(0, restarted + 45_000 - Date.now()),
        interval: 250,
      })
      .catch(() => {});
    const resumed = newArrivals().sort((a, b) => a - b);
    const summary = `${receiver.arrivals.size} of ${DELIVERIES} delivered; ${arrivedBeforeKill.size} before the kill (${inFlight.size} in flight), ${resumed.length} after the restart, the first ${(((resumed[0] ?? Number.NaN) - restarted) / 1000).toFixed(1)} s after it, the last ${(((resumed.at(-1) ?? Number.NaN) - restarted) / 1000).toFixed(1)} s after it`;

    // Nothing lost, and the remaining deliveries went at the receiver's pace, not the sweep's.
    expect(receiver.arrivals.size, summary).toBe(DELIVERIES);
    expect((resumed[0] ?? Number.POSITIVE_INFINITY) - restarted, summary).toBeLessThan(10_000);
    expect((resumed.at(-1) ?? Number.POSITIVE_INFINITY) - restarted, summary).toBeLessThan(30_000);
    await sleep(3_000); // any late duplicate shows up by now
    const twice = [...receiver.arrivals].filter(([, at]) => at.length > 1).map(([id]) => id);
    expect(
      twice.filter((id) => !inFlight.has(id)),
      summary,
    ).toEqual([]);

    // The log says what happened: every delivery succeeded, none pending.
    const webhooks = await call("GET", "/api/v1/settings/webhooks?pageSize=10", { base: second.baseUrl, token });
    for (const { id } of webhooks.body.data as { id: string }[]) {
      const succeeded = await call(
        "GET",
        `/api/v1/settings/webhooks/${id}/deliveries?status=succeeded&event=transaction.settled&pageSize=1&page=1`,
        { base: second.baseUrl, token },
      );
      expect(succeeded.body.pagination.totalItems, summary).toBe(EVENTS);
      const pending = await call("GET", `/api/v1/settings/webhooks/${id}/deliveries?status=pending&pageSize=1&page=1`, {
        base: second.baseUrl,
        token,
      });
      expect(pending.body.pagination.totalItems, summary).toBe(0);
    }
  }, 180_000);

  it("kill -9 before the fan-out, mid fan-out and mid delivery, each time with every queue message lost: every delivery arrives", async () => {
    const hooks = 20;
    const events = 30;
    const deliveries = hooks * events;
    const dir = tempDir("ids-webhook-crash-points-");
    const receiver = new CountingReceiver();
    // Every first attempt is refused, so that each delivery also needs a retry through the deliveries queue.
    receiver.status = (n) => (n === 1 ? 503 : 200);
    await receiver.up();
    const env = await runtimeEnv(dir.path, {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1,1,1,1",
      OUTBOX_RELAY_SCHEDULE: "* * * * * *",
      OUTBOX_RELAY_GRACE_SECONDS: "2",
      FAN_OUT_SWEEP_GRACE_SECONDS: "2",
      DELIVERIES_SWEEP_SCHEDULE: "* * * * * *",
      DELIVERIES_SWEEP_GRACE_SECONDS: "2",
    });
    const crashed = async (runtime: Runtime): Promise<void> => {
      await runtime.kill();
      await childrenGone(dir.path);
      loseQueueMessages(dir.path);
    };
    const started: Runtime[] = [];
    const start = async (overrides: Record<string, string> = {}): Promise<Runtime> => {
      const runtime = await startRuntime({ ...env, ...overrides });
      started.push(runtime);
      return runtime;
    };
    try {
      // Before the fan-out: the events are stored and sent, then the process dies with their messages.
      const first = await start({ "AzureWebJobs.events-fan-out.Disabled": "true" });
      const token = await adminToken(first.baseUrl);
      for (let i = 0; i < hooks; i++) {
        const created = await call("POST", "/api/v1/settings/webhooks", {
          base: first.baseUrl,
          token,
          body: { url: receiver.url, events: ["transaction.settled"], secret: newWebhookSecret() },
        });
        expect(created.status, created.text).toBe(201);
      }
      const portfolio = await call("POST", "/api/v1/portfolios", {
        base: first.baseUrl,
        token,
        body: { code: `WHPOINTS-${Date.now()}`, name: "Crash points", clientId: "crash", baseCurrency: "EUR" },
      });
      const isin = newIsin();
      await call("POST", "/api/v1/import/securities", {
        base: first.baseUrl,
        token,
        body: { securities: [{ isin, name: "Crash points security", assetClass: "equity", currency: "EUR" }] },
      });
      const reply = await call("POST", "/api/v1/import/transactions", {
        base: first.baseUrl,
        token,
        body: {
          transactions: Array.from({ length: events }, (_, i) => ({
            externalId: `wh-points-${i}`,
            portfolioId: portfolio.body.data.id,
            isin,
            type: "buy",
            status: "settled",
            tradeDate: "2024-03-01",
            settlementDate: "2024-03-05",
            quantity: 1,
            price: 10,
            currency: "EUR",
          })),
        },
      });
      expect(reply.status, reply.text).toBe(200);
      await crashed(first);
      // Sent (by the import, and by the relay while nothing fanned them out), not one recorded as fanned out.
      const outbox = await atRest<{ fanOut: string }>(
        dir.path,
        "events",
        "SELECT c.fanOut FROM c WHERE c.docType = 'outbox' AND c.event = 'transaction.settled'",
      );
      expect(outbox).toHaveLength(events);
      expect(outbox.every((e) => e.fanOut === "pending")).toBe(true);
      expect(await deliveriesAtRest(dir.path)).toEqual(new Map());
      expect(receiver.arrivals.size).toBe(0);

      // Mid fan-out: the relay and the sweep send the events again; killed a third of the way through their first attempts.
      const killWhen = async (runtime: Runtime, done: () => boolean, what: string): Promise<void> => {
        await vi.waitFor(
          () => {
            if (!done())
              throw new Error(`${what}: ${receiver.arrivals.size} arrived, ${receiver.accepted.size} accepted`);
          },
          { timeout: 60_000, interval: 20 },
        );
        await crashed(runtime);
      };
      const second = await start();
      await killWhen(second, () => receiver.arrivals.size >= deliveries / 3, "a third of the first attempts");
      const midFanOut = await deliveriesAtRest(dir.path);
      expect(midFanOut.size).toBeLessThan(deliveries); // some events' fan-out had not run

      // Mid delivery: fan-outs and retries resume; killed once half the deliveries were accepted.
      const third = await start();
      await killWhen(third, () => receiver.accepted.size >= deliveries / 2, "half the deliveries accepted");
      expect(receiver.accepted.size).toBeLessThan(deliveries);

      // Nothing lost: every delivery arrives and is recorded succeeded.
      const fourth = await start();
      await vi.waitFor(() => expect(receiver.accepted.size, `${receiver.arrivals.size} arrived`).toBe(deliveries), {
        timeout: 60_000,
        interval: 250,
      });
      const token4 = await adminToken(fourth.baseUrl);
      const webhooks = await call("GET", "/api/v1/settings/webhooks?pageSize=100", {
        base: fourth.baseUrl,
        token: token4,
      });
      expect(webhooks.body.data).toHaveLength(hooks);
      await vi.waitFor(
        async () => {
          for (const { id } of webhooks.body.data as { id: string }[]) {
            const succeeded = await call(
              "GET",
              `/api/v1/settings/webhooks/${id}/deliveries?status=succeeded&event=transaction.settled&pageSize=1&page=1`,
              { base: fourth.baseUrl, token: token4 },
            );
            expect(succeeded.body.pagination.totalItems).toBe(events);
          }
        },
        { timeout: 30_000, interval: 500 },
      );
      expect(receiver.arrivals.size).toBe(deliveries);
    } finally {
      await Promise.all(started.map((r) => r.stop()));
      await receiver.down();
      dir.remove();
    }
  }, 360_000);
});
