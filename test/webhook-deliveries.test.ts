import { CosmosClient } from "@azure/cosmos";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { QueueServiceClient } from "@azure/storage-queue";
import { adminToken, call, cosmosEndpoint, storageConnectionString, useOwnRuntime } from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  imported,
  price,
  securityRecord,
  uid,
} from "./investment-fixtures";
import { newWebhookSecret, WebhookReceiver, type Answer } from "./webhook-receiver";

// Retries every second or so (±10% jitter), seven attempts in all; the outbox relay, the reaper and
// the deliveries sweep run every second, so the whole file stays within about a minute.
useOwnRuntime({
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1",
  OUTBOX_RELAY_SCHEDULE: "* * * * * *",
  JOBS_REAP_SCHEDULE: "* * * * * *",
  DELIVERIES_SWEEP_SCHEDULE: "* * * * * *",
  DELIVERIES_SWEEP_GRACE_SECONDS: "5",
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("webhook deliveries (real receivers, signatures checked with standardwebhooks)", () => {
  let token: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    token = await adminToken();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.down()));
  });

  async function receiver(): Promise<WebhookReceiver> {
    const r = await new WebhookReceiver().up();
    receivers.push(r);
    return r;
  }

  /** A webhook on `r` (which answers the creation's test event with 200 whatever else it does). */
  async function webhook(r: WebhookReceiver, events: string[]): Promise<string> {
    const secret = newWebhookSecret();
    r.secrets = [secret];
    const reply = await call("POST", "/api/v1/settings/webhooks", {
      token,
      body: { url: r.url, events, secret, description: "delivery test" },
    });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data.id as string;
  }

  /** A settled transaction (one transaction.settled event); returns its external id. */
  async function settledTransaction(portfolioId: string, isin: string): Promise<string> {
    const externalId = uid("T");
    await imported(token, "transactions", {
      transactions: [
        {
          externalId,
          portfolioId,
          isin,
          type: "buy",
          status: "settled",
          tradeDate: "2024-02-01",
          settlementDate: "2024-02-05",
          quantity: 3,
          price: 10,
          currency: "EUR",
        },
      ],
    });
    return externalId;
  }

  let portfolioId: string;
  let isin: string;
  beforeAll(async () => {
    portfolioId = (await createPortfolio(token, { baseCurrency: "EUR" })).id;
    const sec = securityRecord();
    await createSecurities(token, [sec]);
    isin = sec.isin;
  });

  const settledFor = (r: WebhookReceiver) =>
    r.of("transaction.settled").filter((x) => x.envelope.data.portfolioId === portfolioId);
  const deliveryLog = async (webhookId: string, query = "") =>
    (await call("GET", `/api/v1/settings/webhooks/${webhookId}/deliveries${query}`, { token })).body;

  it("delivers each of the six events with its documented data, signed, to subscribed webhooks only", async () => {
    const all = await receiver();
    const valuedOnly = await receiver();
    const allId = await webhook(all, [
      "refresh_job.completed",
      "refresh_job.failed",
      "transaction.settled",
      "exception.created",
      "exception.resolved",
      "portfolio.valued",
    ]);
    await webhook(valuedOnly, ["portfolio.valued"]);

    // refresh_job.completed and transaction.settled
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR" });
    const sec = securityRecord();
    const [secId] = await createSecurities(token, [sec]);
    const externalId = uid("T");
    const job = await imported(token, "transactions", {
      transactions: [
        {
          externalId,
          portfolioId: portfolio.id,
          isin: sec.isin,
          type: "buy",
          status: "settled",
          tradeDate: "2024-01-02",
          settlementDate: "2024-01-04",
          quantity: 5,
          price: 20,
          currency: "EUR",
        },
      ],
    });
    // exception.created (a price jump of 100%) and portfolio.valued (positions priced on a date, one of
    // them without a price: MISSING_PRICE); exception.resolved once its price arrives.
    await imported(token, "prices", { prices: [price(sec.isin, "2024-01-02", 10), price(sec.isin, "2024-01-03", 20)] });
    const gap = securityRecord();
    const [gapId] = await createSecurities(token, [gap]);
    await imported(token, "positions", {
      positions: [
        { portfolioId: portfolio.id, securityId: secId, date: "2024-01-03", quantity: 4 },
        { portfolioId: portfolio.id, securityId: gapId, date: "2024-01-03", quantity: 1 },
      ],
    });
    // refresh_job.failed: a running import whose lease ran out, which the reaper fails
    const jobId = `job_${uid("abandoned")}`;
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    await cosmos
      .database("investment-data")
      .container("jobs")
      .items.create({
        id: jobId,
        source: "api",
        dataType: "prices",
        feedId: null,
        fileName: null,
        status: "running",
        counts: { received: 7, accepted: 0, rejected: 0 },
        errors: [],
        startedAt,
        completedAt: null,
        leaseUntil: new Date(Date.now() - 1000).toISOString(),
        docType: "job",
        sortKey: `${startedAt}|${jobId}`,
      });
    cosmos.dispose();

    const find = (event: string, where: (d: Record<string, unknown>) => boolean) =>
      vi.waitFor(
        () => {
          const found = all.of(event).find((r) => where(r.envelope.data));
          assert.isDefined(found, event);
          return found;
        },
        { timeout: 30_000, interval: 100 },
      );
    const completed = await find("refresh_job.completed", (d) => d.jobId === job.jobId);
    expect(completed.envelope.data).toEqual({
      jobId: job.jobId,
      source: "api",
      dataType: "transactions",
      counts: { received: 1, accepted: 1, rejected: 0, removed: 0 },
      startedAt: iso,
      completedAt: iso,
    });
    const settled = await find("transaction.settled", (d) => d.portfolioId === portfolio.id);
    expect(settled.envelope.data).toEqual({
      transactionId: expect.any(String),
      portfolioId: portfolio.id,
      securityId: secId,
      settlementDate: "2024-01-04",
      quantity: 5,
      netAmount: expect.any(Number),
      currency: "EUR",
      asAt: iso,
    });
    const exception = await find(
      "exception.created",
      (d) => d.type === "PRICE_JUMP" && JSON.stringify(d.entity).includes(sec.isin),
    );
    expect(exception.envelope.data).toMatchObject({
      exceptionId: expect.any(String),
      type: "PRICE_JUMP",
      severity: expect.any(String),
      message: expect.any(String),
      entity: expect.any(Object),
    });
    const valued = await find("portfolio.valued", (d) => d.portfolioId === portfolio.id);
    expect(valued.envelope.data).toEqual({
      portfolioId: portfolio.id,
      valuationDate: "2024-01-03",
      totalValue: 80,
      currency: "EUR",
      complete: false,
      unvaluedCount: 1,
      asAt: iso,
    });
    const missing = await find(
      "exception.created",
      (d) => d.type === "MISSING_PRICE" && (d.entity as { id: string }).id === gapId,
    );
    await imported(token, "prices", { prices: [price(gap.isin, "2024-01-03", 1)] });
    const resolved = await find("exception.resolved", (d) => d.exceptionId === missing.envelope.data.exceptionId);
    expect(resolved.envelope.data).toEqual({
      exceptionId: missing.envelope.data.exceptionId,
      type: "MISSING_PRICE",
      resolvedBy: "system",
      resolution: `A close price of 2024-01-03 now values security ${gapId} in portfolio ${portfolio.id} on 2024-01-03`,
    });
    const failed = await find("refresh_job.failed", (d) => d.jobId === jobId);
    expect(failed.envelope.data).toMatchObject({
      jobId,
      source: "api",
      dataType: "prices",
      counts: { received: 7, accepted: 0, rejected: 0 },
      startedAt,
      completedAt: iso,
      error: expect.anything(),
    });

    for (const r of [completed, settled, exception, valued, resolved, failed]) {
      expect(r.verifiedWith).toEqual(all.secrets);
      expect(r.headers["webhook-id"]).toBe(r.envelope.id);
      expect(r.envelope.id).toMatch(/^msg_/);
      expect(r.envelope.timestamp).toEqual(iso);
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
    }
    // The other webhook hears only portfolio.valued.
    await expect
      .poll(() => valuedOnly.of("portfolio.valued").some((r) => r.envelope.data.portfolioId === portfolio.id), {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true);
    expect(new Set(valuedOnly.received.map((r) => r.envelope.event))).toEqual(
      new Set(["webhook.test", "portfolio.valued"]),
    );
    // Every delivery to the first webhook is logged as succeeded.
    const log = await deliveryLog(allId, "?pageSize=200");
    expect(log.data.length).toBeGreaterThanOrEqual(6);
  }, 60_000);

  it("retries a failing endpoint with the same webhook-id and body until it answers 2xx", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    r.answer = (envelope, received) => ({
      status:
        envelope.event === "transaction.settled" && received.filter((x) => x.envelope.id === envelope.id).length <= 2
          ? 500
          : 200,
    });
    await settledTransaction(portfolioId, isin);
    await expect.poll(() => settledFor(r).length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    const attempts = settledFor(r);
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(attempts.every((a) => a.verifiedWith.length === 1)).toBe(true);
    const deliveryId = String(attempts[0]!.headers["webhook-id"]);
    const detail = await vi.waitFor(
      async () => {
        const reply = await call("GET", `/api/v1/settings/webhooks/${id}/deliveries/${deliveryId}`, { token });
        expect(reply.body.data?.status).toBe("succeeded");
        return reply.body.data;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(detail).toMatchObject({
      id: deliveryId,
      webhookId: id,
      event: "transaction.settled",
      status: "succeeded",
      attempts: 3,
      lastAttempt: { statusCode: 200 },
      completedAt: iso,
    });
    expect(detail.attemptLog.map((a: { statusCode?: number }) => a.statusCode)).toEqual([500, 500, 200]);
    expect(detail).not.toHaveProperty("nextAttemptAt");
    expect(detail).not.toHaveProperty("payload");
  }, 30_000);

  it("keeps retrying a receiver that is down and delivers every event exactly once when it is back", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    await r.down();
    const externalIds = [];
    for (let i = 0; i < 4; i++) externalIds.push(await settledTransaction(portfolioId, isin));
    await sleep(3500); // several rounds of the one-second schedule against a closed port
    await r.up();
    await expect.poll(() => settledFor(r).length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(4);
    await sleep(3000); // long enough for any duplicate to show up
    const counts = [...r.countsById()].filter(([k]) => settledFor(r).some((x) => x.headers["webhook-id"] === k));
    expect(counts).toHaveLength(4);
    expect(counts.every(([, n]) => n === 1)).toBe(true);
    const log = await deliveryLog(id, "?event=transaction.settled");
    expect(log.data).toHaveLength(4);
    for (const d of log.data) {
      expect(d.status).toBe("succeeded");
      expect(d.attempts).toBeGreaterThan(1);
    }
    const one = (await call("GET", `/api/v1/settings/webhooks/${id}/deliveries/${log.data[0].id}`, { token })).body
      .data;
    expect(one.attemptLog[0].statusCode).toBeUndefined();
    expect(one.attemptLog[0].error).toEqual(expect.any(String));
  }, 40_000);

  it("410 Gone fails the delivery, disables the webhook and stops its deliveries", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    r.answer = (envelope) => ({ status: envelope.event === "webhook.test" ? 200 : 410 });
    await settledTransaction(portfolioId, isin);
    await expect.poll(() => settledFor(r).length, { timeout: 15_000, interval: 100 }).toBeGreaterThanOrEqual(1);
    const hook = await vi.waitFor(
      async () => {
        const reply = await call("GET", `/api/v1/settings/webhooks/${id}`, { token });
        expect(reply.body.data?.status).toBe("disabled");
        return reply.body.data;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(hook.disabledReason).toMatch(/410/);
    const log = await deliveryLog(id);
    expect(log.data[0]).toMatchObject({ status: "failed", attempts: 1, lastAttempt: { statusCode: 410 } });
    await settledTransaction(portfolioId, isin);
    await sleep(3000); // waits to show that nothing is sent to the disabled webhook
    expect(settledFor(r)).toHaveLength(1);
    // A disabled webhook's failed delivery is not retried until it is enabled again.
    expect(
      (await call("POST", `/api/v1/settings/webhooks/${id}/deliveries/${log.data[0].id}/retry`, { token })).status,
    ).toBe(409);
  }, 30_000);

  it("a redirect is a failed attempt and is never followed; Retry-After is honoured", async () => {
    const r = await receiver();
    const elsewhere = await receiver();
    await webhook(r, ["transaction.settled"]);
    r.answer = (envelope, received): Answer => {
      if (envelope.event !== "transaction.settled") return { status: 200 };
      const n = received.filter((x) => x.envelope.id === envelope.id).length;
      if (n === 1) return { status: 307, headers: { Location: elsewhere.url } };
      if (n === 2) return { status: 503, headers: { "Retry-After": "3" } };
      return { status: 200 };
    };
    await settledTransaction(portfolioId, isin);
    await expect.poll(() => settledFor(r).length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    const [first, second, third] = settledFor(r);
    expect(elsewhere.received).toHaveLength(0);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(800);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(2900);
  }, 30_000);

  it("a 2xx whose body trickles (headers at once, then 1 byte/s) is a delivery: the webhook is created, the event sent once", async () => {
    const r = await receiver();
    r.answer = () => ({ status: 200, trickle: true });
    const started = Date.now();
    const id = await webhook(r, ["transaction.settled"]); // its webhook.test answers the same way
    expect(Date.now() - started).toBeLessThan(10_000);
    await settledTransaction(portfolioId, isin);
    const done = await vi.waitFor(
      async () => {
        const [delivery] = (await deliveryLog(id, "?status=succeeded&event=transaction.settled")).data;
        assert.isDefined(delivery, "the delivery to succeed");
        return delivery;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, lastAttempt: { statusCode: 200 } });
    expect(done.lastAttempt).not.toHaveProperty("error");
    expect(done.lastAttempt.durationMs).toBeLessThan(5_000);
    await sleep(3_000); // the one-second retry schedule would have sent it again by now
    expect(settledFor(r)).toHaveLength(1);
  }, 40_000);

  it("during a secret rotation each delivery carries two signatures, each verifiable on its own", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    const rotated = await call("POST", `/api/v1/settings/webhooks/${id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const [old] = r.secrets;
    r.secrets = [rotated.body.data.secret as string, old!];
    await settledTransaction(portfolioId, isin);
    const got = await vi.waitFor(
      () => {
        const [delivery] = settledFor(r);
        assert.isDefined(delivery, "the delivery");
        return delivery;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(String(got.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(got.verifiedWith.sort()).toEqual([...r.secrets].sort());
  }, 20_000);

  it("a failed delivery is sent again by a manual retry, with the same webhook-id", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    let healthy = false;
    r.answer = (envelope) => ({ status: envelope.event === "webhook.test" || healthy ? 200 : 500 });
    await settledTransaction(portfolioId, isin);
    const failed = await vi.waitFor(
      async () => {
        const [delivery] = (await deliveryLog(id, "?status=failed")).data;
        assert.isDefined(delivery, "the delivery to fail");
        return delivery;
      },
      { timeout: 25_000, interval: 100 },
    );
    expect(failed).toMatchObject({ status: "failed", attempts: 7, lastAttempt: { statusCode: 500 }, completedAt: iso });
    expect(settledFor(r)).toHaveLength(7);
    healthy = true;
    const retried = await call("POST", `/api/v1/settings/webhooks/${id}/deliveries/${failed.id}/retry`, { token });
    expect(retried.status).toBe(202);
    expect(retried.body.data).toMatchObject({ id: failed.id, status: "pending" });
    await expect.poll(() => settledFor(r).length, { timeout: 10_000, interval: 100 }).toBe(8);
    expect(new Set(settledFor(r).map((x) => x.headers["webhook-id"]))).toEqual(new Set([failed.id]));
    const done = await vi.waitFor(
      async () => {
        const [delivery] = (await deliveryLog(id, "?status=succeeded")).data;
        assert.isDefined(delivery, "the retry to succeed");
        return delivery;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(done).toMatchObject({ id: failed.id, attempts: 8, lastAttempt: { statusCode: 200 } });
    expect(
      (await call("POST", `/api/v1/settings/webhooks/${id}/deliveries/${failed.id}/retry`, { token })).status,
    ).toBe(409);
  }, 40_000);

  it("a pending delivery whose queue message was lost is sent by the sweep; a deleted webhook's pending deliveries stop", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    // A delivery recorded as due 10 s ago with no message on the queue (lost, or the process died in between).
    const deliveryId = `msg_lost_${uid("d")}`;
    const createdAt = new Date(Date.now() - 10_000).toISOString();
    const payload = JSON.stringify({
      id: deliveryId,
      event: "transaction.settled",
      timestamp: createdAt,
      data: { transactionId: "lost" },
    });
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const deliveries = cosmos.database("investment-data").container("deliveries");
    await deliveries.items.create({
      id: deliveryId,
      webhookId: id,
      eventId: "evt_lost",
      event: "transaction.settled",
      status: "pending",
      attempts: 0,
      nextAttemptAt: createdAt,
      createdAt,
      attemptLog: [],
      payload,
      eventTimestamp: createdAt,
      scheduleOffset: 0,
      docType: "delivery",
      sortKey: `${createdAt}|${deliveryId}`,
    });
    const got = await vi.waitFor(
      () => {
        const delivery = r.received.find((x) => x.headers["webhook-id"] === deliveryId);
        assert.isDefined(delivery, "the swept delivery");
        return delivery;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(got.body).toBe(payload);
    expect(got.verifiedWith).toEqual(r.secrets);

    // Receiver down: the next delivery stays pending; the webhook is deleted; back up, nothing arrives.
    await r.down();
    await settledTransaction(portfolioId, isin);
    await expect
      .poll(async () => (await deliveryLog(id, "?status=pending&event=transaction.settled")).data.length, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(1);
    expect((await call("DELETE", `/api/v1/settings/webhooks/${id}`, { token })).status).toBe(204);
    await r.up();
    await sleep(4000); // waits to show that nothing is sent for the deleted webhook
    expect(settledFor(r)).toHaveLength(0);
    cosmos.dispose();
  }, 40_000);

  it("fans out an events message that carries several envelopes, each delivered once", async () => {
    const r = await receiver();
    await webhook(r, ["transaction.settled"]);
    const at = new Date().toISOString();
    const envelopes = [1, 2, 3].map((n) => ({
      id: `evt_batch_${uid("e")}_${n}`,
      event: "transaction.settled",
      timestamp: at,
      data: { transactionId: `batch-${n}`, portfolioId: "batch" },
    }));
    const events = QueueServiceClient.fromConnectionString(storageConnectionString()).getQueueClient("events");
    await events.sendMessage(Buffer.from(JSON.stringify(envelopes)).toString("base64"));
    await events.sendMessage(Buffer.from(JSON.stringify(envelopes[0])).toString("base64")); // a repeat of one of them
    const batch = () => r.of("transaction.settled").filter((x) => x.envelope.data.portfolioId === "batch");
    await expect.poll(() => batch().length, { timeout: 15_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    await sleep(2000); // waits to show that the repeated envelope is not delivered again
    expect(
      batch()
        .map((x) => x.envelope.data.transactionId)
        .sort(),
    ).toEqual(["batch-1", "batch-2", "batch-3"]);
    expect(batch().every((x) => x.verifiedWith.length === 1)).toBe(true);
  }, 30_000);

  it("POST {id}/test sends webhook.test now and answers with the delivery; the log filters and pages", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    const reply = await call("POST", `/api/v1/settings/webhooks/${id}/test`, { token });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      webhookId: id,
      event: "webhook.test",
      status: "succeeded",
      attempts: 1,
      lastAttempt: { statusCode: 200, durationMs: expect.any(Number), at: iso },
      createdAt: iso,
      completedAt: iso,
    });
    const test = r.received.find((x) => x.envelope.id === reply.body.data.id);
    expect(test?.envelope).toMatchObject({ event: "webhook.test", data: { webhookId: id } });
    expect(test?.verifiedWith).toEqual(r.secrets);

    await settledTransaction(portfolioId, isin);
    await settledTransaction(portfolioId, isin);
    await expect.poll(() => settledFor(r).length, { timeout: 15_000, interval: 100 }).toBeGreaterThanOrEqual(2);
    await expect
      .poll(async () => (await deliveryLog(id, "?status=succeeded&event=transaction.settled")).data.length, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(2);
    // The creation's webhook.test is the log's first entry; the one sent now comes after it.
    const tests = (await deliveryLog(id, "?event=webhook.test")).data as { id: string; subject: string }[];
    expect(tests.map((d) => d.id)).toEqual([reply.body.data.id, r.of("webhook.test")[0]!.headers["webhook-id"]]);
    expect(tests.every((d) => d.subject === id)).toBe(true);
    expect((await deliveryLog(id, "?status=pending")).data).toEqual([]);
    const first = await deliveryLog(id, "?pageSize=1&cursor=");
    expect(first.error.code).toBe("INVALID_REQUEST");
    const page1 = await deliveryLog(id, "?pageSize=1&page=1");
    expect(page1.pagination).toMatchObject({ page: 1, pageSize: 1, totalItems: 4, totalPages: 4 });
    const all = [page1.data[0].id];
    let cursor = page1.pagination.nextCursor as string | null;
    while (cursor !== null) {
      const page = await deliveryLog(id, `?pageSize=1&cursor=${encodeURIComponent(cursor)}`);
      all.push(page.data[0].id);
      cursor = page.pagination.nextCursor;
    }
    expect(new Set(all).size).toBe(4);
    for (const item of page1.data) expect(item).not.toHaveProperty("attemptLog");
  }, 30_000);

  it("answers 4xx, never 5xx, to unknown webhooks and deliveries, bad ids and bad filters", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    const cases: [string, string, number][] = [
      ["GET", `/api/v1/settings/webhooks/wh_nope/deliveries`, 404],
      ["GET", `/api/v1/settings/webhooks/${id}/deliveries/msg_nope`, 404],
      ["POST", `/api/v1/settings/webhooks/${id}/deliveries/msg_nope/retry`, 404],
      ["POST", `/api/v1/settings/webhooks/wh_nope/test`, 404],
      ["GET", `/api/v1/settings/webhooks/${id}/deliveries?status=done`, 400],
      ["GET", `/api/v1/settings/webhooks/${id}/deliveries?event=nope`, 400],
      ["GET", `/api/v1/settings/webhooks/${id}/deliveries?pageSize=0`, 400],
      ["GET", `/api/v1/settings/webhooks/${id}/deliveries?cursor=garbage`, 400],
      ["GET", `/api/v1/settings/webhooks/${id}/deliveries/%25bad`, 400],
      ["POST", `/api/v1/settings/webhooks/%20x/test`, 400],
    ];
    for (const [method, path, status] of cases) {
      const reply = await call(method, path, { token });
      expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(status);
      expect(reply.body.error.code).toEqual(expect.any(String));
    }
    expect(
      (await call("POST", `/api/v1/settings/webhooks/${id}/test`, { token, body: "{not json" })).status,
    ).toBeLessThan(500);
    expect((await call("GET", `/api/v1/settings/webhooks/${id}/deliveries`)).status).toBe(401);
  }, 20_000);

  it("each attempt keeps what was sent and what came back (never a secret); the list shows the subject and filters by date", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    r.answer = (envelope, received): Answer => {
      if (envelope.event !== "transaction.settled") return { status: 200 };
      return received.filter((x) => x.envelope.id === envelope.id).length === 1
        ? { status: 503, headers: { "x-receiver": "busy one" }, body: "x".repeat(5_000) }
        : { status: 200, headers: { "content-type": "application/json" }, body: '{"ok":true}' };
    };
    await settledTransaction(portfolioId, isin);
    const [first, second] = await vi.waitFor(
      () => {
        const got = settledFor(r);
        expect(got).toHaveLength(2);
        return got;
      },
      { timeout: 15_000, interval: 100 },
    );
    const deliveryId = String(first!.headers["webhook-id"]);
    const detail = await vi.waitFor(
      async () => {
        const reply = await call("GET", `/api/v1/settings/webhooks/${id}/deliveries/${deliveryId}`, { token });
        expect(reply.body.data?.status).toBe("succeeded");
        return reply.body.data;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(detail.subject).toBe(first!.envelope.data.transactionId);
    const [refused, accepted] = detail.attemptLog;
    expect(refused).toMatchObject({
      statusCode: 503,
      request: {
        headers: {
          "webhook-id": deliveryId,
          "webhook-timestamp": first!.headers["webhook-timestamp"],
          "webhook-signature": first!.headers["webhook-signature"],
          "content-type": "application/json",
        },
        body: first!.body,
      },
      response: { headers: { "x-receiver": "busy one" }, body: "x".repeat(4096), bodyTruncated: true },
    });
    expect(accepted).toMatchObject({
      statusCode: 200,
      request: { headers: { "webhook-signature": second!.headers["webhook-signature"] }, body: second!.body },
      response: { headers: { "content-type": "application/json" }, body: '{"ok":true}' },
    });
    expect(JSON.stringify(detail)).not.toContain(r.secrets[0]!.slice("whsec_".length, "whsec_".length + 16));

    // The list: each delivery with its subject, no log; from/to bound createdAt, inclusive, as times or days.
    const created = detail.createdAt as string;
    const listed = (q: string) =>
      deliveryLog(id, `?event=transaction.settled&${q}`).then((b) => (b.data as { id: string }[]).map((d) => d.id));
    expect((await deliveryLog(id, "?event=transaction.settled")).data[0]).toMatchObject({
      id: deliveryId,
      subject: detail.subject,
    });
    expect(await listed(`from=${encodeURIComponent(created)}`)).toEqual([deliveryId]);
    expect(await listed(`to=${encodeURIComponent(created)}`)).toEqual([deliveryId]);
    const later = new Date(Date.parse(created) + 1).toISOString();
    expect(await listed(`from=${encodeURIComponent(later)}`)).toEqual([]);
    const day = created.slice(0, 10);
    expect(await listed(`from=${day}&to=${day}`)).toEqual([deliveryId]);
    // Times compare as instants, not as text: a bound without milliseconds, or with an offset, means what it says.
    const wholeSecond = created.slice(0, 19);
    expect(await listed(`to=${wholeSecond}Z`)).toEqual(created.endsWith(".000Z") ? [deliveryId] : []);
    expect(await listed(`from=${encodeURIComponent(`${wholeSecond}+00:00`)}`)).toEqual([deliveryId]);
    expect(await listed("to=2020-01-01")).toEqual([]);
    for (const q of ["from=2024-02-01&to=2024-01-01", "from=yesterday", "to=2024-13-01"]) {
      const reply = await call("GET", `/api/v1/settings/webhooks/${id}/deliveries?${q}`, { token });
      expect(reply.status, q).toBe(400);
    }
  }, 30_000);

  it("Retry now sends a pending delivery at once, ahead of its schedule", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    r.answer = (envelope, received) =>
      envelope.event === "transaction.settled" && received.filter((x) => x.envelope.id === envelope.id).length === 1
        ? { status: 503, headers: { "Retry-After": "120" } }
        : { status: 200 };
    await settledTransaction(portfolioId, isin);
    const pending = await vi.waitFor(
      async () => {
        const [delivery] = (await deliveryLog(id, "?status=pending&event=transaction.settled")).data;
        assert.isDefined(delivery, "the delivery to wait for its retry");
        return delivery;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(Date.parse(pending.nextAttemptAt) - Date.now()).toBeGreaterThan(60_000);
    const retried = await call("POST", `/api/v1/settings/webhooks/${id}/deliveries/${pending.id}/retry`, { token });
    expect(retried.status).toBe(202);
    expect(retried.body.data).toMatchObject({ id: pending.id, status: "pending", attempts: 1 });
    await expect.poll(() => settledFor(r).length, { timeout: 10_000, interval: 100 }).toBe(2);
    expect(new Set(settledFor(r).map((x) => x.headers["webhook-id"]))).toEqual(new Set([pending.id]));
    await expect
      .poll(async () => (await deliveryLog(id, "?status=succeeded&event=transaction.settled")).data[0]?.attempts, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(2);
  }, 30_000);

  it("recover sends every delivery that failed since T again, through the queue, oldest first, each once, with its own webhook-id", async () => {
    const r = await receiver();
    const id = await webhook(r, ["transaction.settled"]);
    let healthy = false;
    r.answer = (envelope) => ({ status: envelope.event === "webhook.test" || healthy ? 200 : 500 });
    const since = new Date().toISOString();
    for (let i = 0; i < 3; i++) await settledTransaction(portfolioId, isin);
    const failed = await vi.waitFor(
      async () => {
        const log = (await deliveryLog(id, "?status=failed&event=transaction.settled")).data as {
          id: string;
          createdAt: string;
        }[];
        expect(log).toHaveLength(3);
        return log;
      },
      { timeout: 30_000, interval: 250 },
    );
    const oldestFirst = [...failed].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((d) => d.id);
    const before = settledFor(r).length;
    healthy = true;
    const bad = await call("POST", `/api/v1/settings/webhooks/${id}/recover`, { token, body: { since: "last week" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe("since");
    const reply = await call("POST", `/api/v1/settings/webhooks/${id}/recover`, { token, body: { since } });
    expect(reply.status, reply.text).toBe(202);
    expect(reply.body).toEqual({ data: { count: 3 } });
    await expect.poll(() => settledFor(r).length - before, { timeout: 15_000, interval: 100 }).toBe(3);
    expect(
      settledFor(r)
        .slice(before)
        .map((x) => x.headers["webhook-id"]),
    ).toEqual(oldestFirst);
    await expect
      .poll(async () => (await deliveryLog(id, "?status=succeeded&event=transaction.settled")).data.length, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(3);
    await sleep(2_000); // nothing is sent a second time
    expect(settledFor(r).length - before).toBe(3);
    const again = await call("POST", `/api/v1/settings/webhooks/${id}/recover`, { token, body: { since } });
    expect(again.body).toEqual({ data: { count: 0 } });
    expect((await call("POST", `/api/v1/settings/webhooks/wh_nope/recover`, { token, body: { since } })).status).toBe(
      404,
    );
  }, 60_000);

  it("a webhook whose every delivery failed for WEBHOOK_DISABLE_AFTER_DAYS is disabled with the reason; the list filters by status", async () => {
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const settings = cosmos.database("investment-data").container("settings");
    const failingFor = async (webhookId: string, days: number): Promise<string> => {
      const since = new Date(Date.now() - days * 86_400_000).toISOString();
      const { resource } = await settings.item(webhookId, "webhook").read<Record<string, unknown>>();
      await settings.item(webhookId, "webhook").replace({ ...resource, failingSince: since });
      return since;
    };
    const down = await receiver();
    const recent = await receiver();
    const longFailing = await webhook(down, ["transaction.settled"]);
    const shortFailing = await webhook(recent, ["transaction.settled"]);
    for (const r of [down, recent])
      r.answer = (envelope) => ({ status: envelope.event === "webhook.test" ? 200 : 500 });
    const since = await failingFor(longFailing, 6); // what six days of failures left
    const sinceRecent = await failingFor(shortFailing, 4);
    await settledTransaction(portfolioId, isin);
    const disabled = await vi.waitFor(
      async () => {
        const reply = await call("GET", `/api/v1/settings/webhooks/${longFailing}`, { token });
        expect(reply.body.data.status).toBe("disabled");
        return reply.body.data;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(disabled.disabledReason).toMatch(
      new RegExp(`^every delivery failed for 5 days: no attempt succeeded since ${since.replace(/\./g, "\\.")}`),
    );
    expect(disabled.disabledReason).toContain("the endpoint answered 500");
    const other = (await call("GET", `/api/v1/settings/webhooks/${shortFailing}`, { token })).body.data;
    expect(other).toMatchObject({ status: "enabled", failingSince: sinceRecent });
    expect(other).not.toHaveProperty("disabledReason");
    const listed = async (status: string) => {
      const ids: string[] = [];
      for (let page = 1; ; page++) {
        const reply = await call("GET", `/api/v1/settings/webhooks?status=${status}&pageSize=100&page=${page}`, {
          token,
        });
        ids.push(...(reply.body.data as { id: string }[]).map((w) => w.id));
        if (page >= reply.body.pagination.totalPages) return ids;
      }
    };
    expect(await listed("disabled")).toContain(longFailing);
    expect(await listed("disabled")).not.toContain(shortFailing);
    expect(await listed("enabled")).toContain(shortFailing);
    expect((await call("GET", "/api/v1/settings/webhooks?status=gone", { token })).status).toBe(400);
    // Enabled again: no reason, and the failures are counted afresh.
    const enabled = await call("PATCH", `/api/v1/settings/webhooks/${longFailing}`, {
      token,
      body: { status: "enabled" },
    });
    expect(enabled.body.data).not.toHaveProperty("disabledReason");
    expect(enabled.body.data).not.toHaveProperty("failingSince");
    cosmos.dispose();
  }, 30_000);
});
