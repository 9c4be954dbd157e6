import { describe, expect, it } from "vitest";
import type { DeliveryRef, StoredDelivery } from "../../domain/delivery";
import type { EventEnvelope } from "../../domain/events";
import type { CursorPage } from "../../domain/page-request";
import {
  deliveryKey,
  type DeliveryRepository,
  type DueDelivery,
  type VersionedDelivery,
} from "../../ports/delivery-repository";
import type { MessageBus, OutgoingMessage, QueueName } from "../../ports/message-bus";
import type { DeliveryTarget, WebhookDirectory, WebhookPostResult, WebhookSender } from "../../ports/webhook-delivery";
import { DeliverWebhooks } from "./deliver-webhooks";
import type { DeliveriesMessage } from "./deliveries-message";
import { DeliveryAttempts } from "./delivery-attempts";
import { FanOutEvents } from "./fan-out-events";
import { RetryWebhookDelivery } from "./retry-webhook-delivery";
import { SweepDeliveries } from "./sweep-deliveries";
import { TestWebhook } from "./test-webhook";

class MemoryDeliveries implements DeliveryRepository {
  readonly docs = new Map<string, VersionedDelivery>();
  private version = 0;
  private key = (r: DeliveryRef) => `${r.webhookId}/${r.id}`;
  async createIfAbsent(d: StoredDelivery) {
    if (this.docs.has(this.key(d))) return undefined;
    const etag = String(++this.version);
    this.docs.set(this.key(d), { ...d, _etag: etag });
    return etag;
  }
  /** Set to make the next bulk create fail (a crash after the POSTs, before their outcomes are written). */
  failNextCreate = false;
  async createManyIfAbsent(ds: readonly StoredDelivery[]) {
    if (this.failNextCreate) {
      this.failNextCreate = false;
      throw new Error("the store went away");
    }
    const out = [];
    for (const d of ds) out.push(await this.createIfAbsent(d));
    return out;
  }
  async replaceManyIfUnchanged(items: readonly { delivery: StoredDelivery; etag: string }[]) {
    const out = [];
    for (const { delivery, etag } of items) out.push(await this.replaceIfUnchanged(delivery, etag));
    return out;
  }
  async get(ref: DeliveryRef) {
    const d = this.docs.get(this.key(ref));
    return d === undefined ? undefined : structuredClone(d);
  }
  async getMany(refs: readonly DeliveryRef[]) {
    const found = new Map<string, VersionedDelivery>();
    for (const ref of refs) {
      const d = await this.get(ref);
      if (d !== undefined) found.set(deliveryKey(ref), d);
    }
    return found;
  }
  async replaceIfUnchanged(d: StoredDelivery, etag: string) {
    const current = this.docs.get(this.key(d));
    if (current?._etag !== etag) return undefined;
    const next = String(++this.version);
    this.docs.set(this.key(d), { ...structuredClone(d), _etag: next });
    return next;
  }
  async update(ref: DeliveryRef, change: (c: StoredDelivery) => StoredDelivery | undefined) {
    const current = await this.get(ref);
    if (current === undefined) return undefined;
    const next = change(current);
    if (next === undefined) return current;
    this.docs.set(this.key(ref), { ...next, _etag: String(++this.version) });
    return next;
  }
  async list(webhookId: string): Promise<CursorPage<StoredDelivery>> {
    const items = [...this.docs.values()].filter((d) => d.webhookId === webhookId);
    return { items, totalItems: items.length, nextCursor: null };
  }
  async pendingOf(webhookId: string) {
    return [...this.docs.values()]
      .filter((d) => d.webhookId === webhookId && d.status === "pending")
      .map(({ webhookId: w, id }) => ({ webhookId: w, id }));
  }
  async *overdue(before: string, pageSize: number): AsyncIterable<DueDelivery[]> {
    const due = [...this.docs.values()]
      .filter((d) => d.status === "pending" && (d.nextAttemptAt ?? "") < before)
      .map(({ webhookId, id, nextAttemptAt }) => ({ webhookId, id, nextAttemptAt: nextAttemptAt! }));
    for (let i = 0; i < due.length; i += pageSize) yield due.slice(i, i + pageSize);
  }
}

class Directory implements WebhookDirectory {
  readonly targets = new Map<string, DeliveryTarget>();
  readonly disabled: [string, string][] = [];
  add(webhookId: string, events: DeliveryTarget["events"] = ["transaction.settled"]) {
    this.targets.set(webhookId, {
      webhookId,
      url: `https://example.test/${webhookId}`,
      status: "enabled",
      events,
      signingSecrets: ["whsec_a", "whsec_b"],
    });
  }
  async subscribedTo(event: string) {
    return [...this.targets.values()].filter(
      (t) => t.status === "enabled" && (t.events as readonly string[]).includes(event),
    );
  }
  async target(id: string) {
    return this.targets.get(id);
  }
  async disable(id: string, reason: string) {
    this.disabled.push([id, reason]);
    const t = this.targets.get(id);
    if (t) this.targets.set(id, { ...t, status: "disabled" });
  }
}

class Bus implements MessageBus {
  readonly sent: { queue: QueueName; message: OutgoingMessage }[] = [];
  async send(queue: QueueName, messages: readonly OutgoingMessage[]) {
    for (const message of messages) this.sent.push({ queue, message });
  }
}

function setup(answers: WebhookPostResult[]) {
  let now = new Date("2026-01-01T00:00:00Z");
  const clock = { now: () => new Date(now) };
  const deliveries = new MemoryDeliveries();
  const directory = new Directory();
  const bus = new Bus();
  const posts: { url: string; headers: Record<string, string>; body: string }[] = [];
  const sender: WebhookSender = {
    async post(url, headers, body) {
      posts.push({ url, headers: { ...headers }, body });
      return answers.shift() ?? { statusCode: 200, durationMs: 3 };
    },
  };
  const sign = (id: string, at: Date, _body: string, secrets: readonly string[]) => ({
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => `v1,${s}`).join(" "),
  });
  const attempts = new DeliveryAttempts({
    deliveries,
    directory,
    sender,
    sign,
    bus,
    clock,
    retrySchedule: [5, 60],
    random: () => 0.5,
  });
  const deps = { deliveries, directory, attempts, bus, clock };
  const deliver = new DeliverWebhooks(deps);
  const fanOut = new FanOutEvents(deps);
  const retryDelivery = new RetryWebhookDelivery(deps);
  const testWebhook = new TestWebhook(deps);
  const advance = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));
  const deliveryMessages = () => bus.sent.filter((s) => s.queue === "deliveries").map((s) => s.message);
  /** Runs the latest `deliveries` message, as the queue would once its delay is over. */
  const runLatest = () => deliver.execute(deliveryMessages().at(-1)!.body as DeliveriesMessage);
  const sweep = new SweepDeliveries({ ...deps, graceSeconds: 60 });
  return {
    deliveries,
    directory,
    bus,
    posts,
    deliver,
    fanOut,
    retryDelivery,
    testWebhook,
    sweep,
    advance,
    deliveryMessages,
    runLatest,
  };
}

const event: EventEnvelope = {
  id: "evt_1",
  event: "transaction.settled",
  timestamp: "2026-01-01T00:00:00.000Z",
  data: { transactionId: "t1" },
};

describe("webhook fan-out and delivery (in-memory ports)", () => {
  it("fans an event out to subscribed webhooks only, once per event id", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    s.directory.add("wh_b", ["portfolio.valued"]);
    const first = await s.fanOut.execute([event]);
    const again = await s.fanOut.execute([event]);
    expect(first.map((r) => r.webhookId)).toEqual(["wh_a"]);
    expect(again).toEqual(first);
    expect(s.deliveries.docs.size).toBe(1);
    const stored = [...s.deliveries.docs.values()][0]!;
    expect(JSON.parse(stored.payload)).toEqual({
      id: stored.id,
      event: "transaction.settled",
      timestamp: event.timestamp,
      data: { transactionId: "t1" },
    });
  });

  it("fans out every event of a batch (an events message may carry several envelopes)", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    s.directory.add("wh_b");
    const refs = await s.fanOut.execute(
      [1, 2, 3].map((n) => ({ ...event, id: `evt_${n}`, data: { transactionId: `t${n}` } })),
    );
    expect(refs).toHaveLength(6);
    expect(new Set(refs.map((r) => r.id)).size).toBe(6);
    expect(s.posts).toHaveLength(6);
    expect(new Set(s.posts.map((p) => JSON.parse(p.body).data.transactionId))).toEqual(new Set(["t1", "t2", "t3"]));
  });

  it("the fan-out makes the first attempt with one write; repeated event and delivery messages do not send again", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]);
    await s.fanOut.execute([event]);
    await Promise.all([s.deliver.execute({ deliveries: [ref!] }), s.deliver.execute({ deliveries: [ref!] })]);
    expect(s.posts).toHaveLength(1);
    expect(s.deliveryMessages()).toEqual([]); // a delivery recorded already needs no message
    expect(s.posts[0]!.headers["webhook-id"]).toBe(ref!.id);
    expect(s.posts[0]!.headers["webhook-signature"]).toBe("v1,whsec_a v1,whsec_b");
    const stored = await s.deliveries.get(ref!);
    expect(stored).toMatchObject({ status: "succeeded", attempts: 1, lastAttempt: { statusCode: 200 }, _etag: "1" }); // created once, never replaced
    expect(stored?.nextAttemptAt).toBeUndefined();
  });

  it("an event fanned out twice at the same time is attempted once", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    s.directory.add("wh_b");
    await Promise.all([s.fanOut.execute([event]), s.fanOut.execute([event]), s.fanOut.execute([event, event])]);
    expect(s.posts.map((p) => p.headers["webhook-id"]).sort()).toEqual(
      [...s.deliveries.docs.values()].map((d) => d.id).sort(),
    );
    expect(s.posts).toHaveLength(2);
  });

  it("a crash after the POSTs and before their outcomes are written: the message comes back and only those are sent again", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    s.deliveries.failNextCreate = true;
    await expect(s.fanOut.execute([event])).rejects.toThrow("the store went away");
    expect(s.deliveries.docs.size).toBe(0);
    const [ref] = await s.fanOut.execute([event]); // the events message, back after its visibility lapsed
    await s.fanOut.execute([event]);
    expect(s.posts.map((p) => p.headers["webhook-id"])).toEqual([ref!.id, ref!.id]);
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("retries on the schedule with jitter, never before Retry-After, and fails when it is spent", async () => {
    const s = setup([
      { statusCode: 500, durationMs: 1 },
      { statusCode: 503, retryAfterSeconds: 120, durationMs: 1 },
      { error: "connection refused", durationMs: 1 },
    ]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]);
    const due = (await s.deliveries.get(ref!))?.nextAttemptAt;
    expect(due).toBe("2026-01-01T00:00:05.000Z");
    expect(s.deliveryMessages()).toEqual([
      { body: { deliveries: [{ ...ref!, due }] } satisfies DeliveriesMessage, delaySeconds: 5 },
    ]);
    await s.runLatest(); // early: not due
    expect(s.posts).toHaveLength(1);
    s.advance(5);
    await s.runLatest();
    expect(s.deliveryMessages().at(-1)?.delaySeconds).toBe(120); // 60 s scheduled, Retry-After 120 wins
    s.advance(120);
    await s.runLatest();
    const stored = await s.deliveries.get(ref!);
    expect(stored).toMatchObject({ status: "failed", attempts: 3, lastAttempt: { error: "connection refused" } });
    expect(stored?.attemptLog.map((a) => a.statusCode)).toEqual([500, 503, undefined]);
    expect(new Set(s.posts.map((p) => p.headers["webhook-id"]))).toEqual(new Set([ref!.id]));
    expect(new Set(s.posts.map((p) => p.body)).size).toBe(1);
  });

  it("failed first attempts due in the same second share one retry message", async () => {
    const s = setup([1, 2, 3].map(() => ({ statusCode: 500, durationMs: 1 })));
    s.directory.add("wh_a");
    const refs = await s.fanOut.execute([1, 2, 3].map((n) => ({ ...event, id: `evt_${n}` })));
    expect(s.deliveryMessages()).toHaveLength(1);
    expect((s.deliveryMessages()[0]!.body as DeliveriesMessage).deliveries.map((t) => t.id).sort()).toEqual(
      refs.map((r) => r.id).sort(),
    );
    s.advance(5);
    await s.runLatest();
    expect(s.posts).toHaveLength(6);
  });

  it("410 fails the delivery, disables the webhook and stops its other pending deliveries", async () => {
    const s = setup([
      { statusCode: 500, durationMs: 1 },
      { statusCode: 410, durationMs: 1 },
    ]);
    s.directory.add("wh_a");
    const [first] = await s.fanOut.execute([event]); // 500: pending, retried later
    const [second] = await s.fanOut.execute([{ ...event, id: "evt_2" }]); // 410
    expect(s.directory.disabled).toEqual([["wh_a", "the endpoint answered 410 Gone"]]);
    expect(await s.deliveries.get(second!)).toMatchObject({ status: "failed", lastAttempt: { statusCode: 410 } });
    expect(await s.deliveries.get(first!)).toMatchObject({
      status: "failed",
      failureReason: expect.stringMatching(/410/),
    });
    s.advance(10);
    await s.deliver.execute(s.deliveryMessages()[0]!.body as DeliveriesMessage);
    expect(s.posts).toHaveLength(2);
    expect(await s.fanOut.execute([{ ...event, id: "evt_3" }])).toEqual([]);
  });

  it("a deleted webhook's pending delivery fails with a reason instead of being sent", async () => {
    const s = setup([{ statusCode: 500, durationMs: 1 }]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]);
    s.directory.targets.delete("wh_a");
    s.advance(10);
    await s.runLatest();
    expect(s.posts).toHaveLength(1);
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "failed", failureReason: "the webhook was deleted" });
  });

  it("copies of one message never attempt the same delivery twice: held while in flight, stale once attempted", async () => {
    const s = setup([
      { statusCode: 500, durationMs: 1 },
      { statusCode: 500, durationMs: 1 },
    ]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]);
    const retry = s.deliveryMessages()[0]!.body as DeliveriesMessage;
    s.advance(10);
    await Promise.all([
      s.deliver.execute(retry),
      s.deliver.execute(retry),
      s.deliver.execute({ deliveries: [...retry.deliveries, ...retry.deliveries] }),
    ]);
    expect(s.posts).toHaveLength(2);
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "pending", attempts: 2 });
    s.advance(120); // the next attempt is due; a late copy of the first retry message is not its message
    await s.deliver.execute(retry);
    expect(s.posts).toHaveLength(2);
    await s.runLatest();
    expect(s.posts).toHaveLength(3);
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "succeeded", attempts: 3 });
  });

  it("the sweep re-enqueues a pending delivery only once it is overdue by more than the grace period", async () => {
    const s = setup([{ statusCode: 500, durationMs: 1 }]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]); // due again in 5 s; pretend its message is lost
    const due = (await s.deliveries.get(ref!))?.nextAttemptAt;
    s.advance(5 + 59);
    expect(await s.sweep.execute()).toBe(0);
    s.advance(2);
    expect(await s.sweep.execute()).toBe(1);
    expect(s.deliveryMessages().at(-1)).toEqual({ body: { deliveries: [{ ...ref!, due }] } });
    await s.runLatest();
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(await s.sweep.execute()).toBe(0);
  });

  it("a manual retry sends a failed delivery again with a fresh schedule; pending or succeeded ones are a conflict", async () => {
    const s = setup([
      { statusCode: 500, durationMs: 1 },
      { statusCode: 500, durationMs: 1 },
      { statusCode: 500, durationMs: 1 },
    ]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]);
    await expect(s.retryDelivery.execute({ webhookId: "wh_a", deliveryId: ref!.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    for (const wait of [5, 60]) {
      s.advance(wait);
      await s.runLatest();
    }
    expect((await s.deliveries.get(ref!))?.status).toBe("failed");
    expect(await s.retryDelivery.execute({ webhookId: "wh_a", deliveryId: ref!.id })).toMatchObject({
      status: "pending",
      attempts: 3,
    });
    await s.runLatest();
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "succeeded", attempts: 4 });
    await expect(s.retryDelivery.execute({ webhookId: "wh_a", deliveryId: ref!.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect(s.retryDelivery.execute({ webhookId: "wh_a", deliveryId: "msg_nope" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(s.retryDelivery.execute({ webhookId: "wh_nope", deliveryId: ref!.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("the test event is a delivery of its own, attempted at once", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    const delivery = await s.testWebhook.execute("wh_a");
    expect(delivery).toMatchObject({ event: "webhook.test", status: "succeeded", attempts: 1, webhookId: "wh_a" });
    expect(JSON.parse(s.posts[0]!.body)).toMatchObject({
      id: delivery.id,
      event: "webhook.test",
      data: { webhookId: "wh_a" },
    });
    expect(delivery).not.toHaveProperty("payload");
  });
});
