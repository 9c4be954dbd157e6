import { describe, expect, it } from "vitest";
import { setup } from "../../../test/webhook-doubles";
import type { EventEnvelope } from "../../domain/events";
import type { DeliveriesMessage } from "./deliveries-message";

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

  it("records each event's fan-out as complete once its deliveries exist, and only then", async () => {
    const s = setup([]);
    s.directory.add("wh_a");
    s.directory.add("wh_b");
    const unsubscribed: EventEnvelope = { ...event, id: "evt_valued", event: "portfolio.valued" };
    // The store fails while the outcomes are written (a crash after the POSTs): nothing is marked.
    s.deliveries.failNextCreate = true;
    await expect(s.fanOut.execute([event])).rejects.toThrow("the store went away");
    expect(s.outbox.fannedOut).toEqual([]);
    // Two copies: the second finds the deliveries held by the first (in flight) and leaves the mark to it.
    let release = (): void => {};
    s.gate.hold = new Promise((r) => (release = r));
    const first = s.fanOut.execute([event, unsubscribed]);
    await new Promise((r) => setTimeout(r, 10));
    await s.fanOut.execute([event]);
    expect(s.outbox.fannedOut).toEqual([]);
    release();
    await first;
    expect(s.outbox.fannedOut).toEqual([event.id, unsubscribed.id]); // nobody subscribed to the second: complete at once
    expect(s.posts).toHaveLength(4); // two before the failed write, two after
    expect(s.deliveries.docs.size).toBe(2);
    // A copy that comes later finds them recorded and marks the event again (harmless).
    await s.fanOut.execute([event]);
    expect(s.posts).toHaveLength(4);
    expect(s.outbox.fannedOut).toEqual([event.id, unsubscribed.id, event.id]);
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
    expect(await s.sweep.execute()).toEqual({ deliveries: 0, recoveries: 0 });
    s.advance(2);
    expect(await s.sweep.execute()).toEqual({ deliveries: 1, recoveries: 0 });
    expect(s.deliveryMessages().at(-1)).toEqual({ body: { deliveries: [{ ...ref!, due }] } });
    await s.runLatest();
    expect(await s.deliveries.get(ref!)).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(await s.sweep.execute()).toEqual({ deliveries: 0, recoveries: 0 });
  });

  it("a manual retry sends a failed delivery again with a fresh schedule; a succeeded one is a conflict", async () => {
    const s = setup([
      { statusCode: 500, durationMs: 1 },
      { statusCode: 500, durationMs: 1 },
      { statusCode: 500, durationMs: 1 },
    ]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]);
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

  it("Retry on a pending delivery sends it now; its schedule continues after it and the message it waited for is stale", async () => {
    const s = setup([
      { statusCode: 500, durationMs: 1 },
      { statusCode: 503, durationMs: 1 },
    ]);
    s.directory.add("wh_a");
    const [ref] = await s.fanOut.execute([event]); // 500: due again in 5 s
    const waiting = s.deliveryMessages()[0]!.body as DeliveriesMessage;
    s.advance(1);
    expect(await s.retryDelivery.execute({ webhookId: "wh_a", deliveryId: ref!.id })).toMatchObject({
      status: "pending",
      attempts: 1,
      nextAttemptAt: "2026-01-01T00:00:01.000Z",
    });
    await s.runLatest(); // the retry's own message: sent now
    expect(s.posts).toHaveLength(2);
    const stored = await s.deliveries.get(ref!);
    // The schedule goes on from where it was (its second delay, 60 s), not from the start.
    expect(stored).toMatchObject({ status: "pending", attempts: 2, nextAttemptAt: "2026-01-01T00:01:01.000Z" });
    s.advance(5);
    await s.deliver.execute(waiting); // the message sent for the old due time finds it no longer due then
    expect(s.posts).toHaveLength(2);
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
