import { describe, expect, it } from "vitest";
import { setup, type Answer } from "../../../test/webhook-doubles";
import type { EventEnvelope } from "../../domain/events";

const settled = (n: number): EventEnvelope => ({
  id: `evt_${n}`,
  event: "transaction.settled",
  timestamp: "2026-01-01T00:00:00.000Z",
  data: { transactionId: `t${n}` },
});

const failing = (n: number): Answer[] => Array.from({ length: n }, () => ({ statusCode: 500, durationMs: 1 }));

/** `count` deliveries to wh_a that fail their whole (two-retry) schedule, one event a second apart. */
async function failedDeliveries(count: number) {
  const s = setup(failing(count * 3));
  s.directory.add("wh_a");
  for (let n = 0; n < count; n++) {
    await s.fanOut.execute([settled(n)]);
    s.advance(1);
  }
  for (const wait of [5, 60]) {
    s.advance(wait);
    for (const message of s.deliveryMessages()) {
      s.advance(1); // each ends at a time of its own
      await s.deliver.execute(message.body as never);
    }
  }
  const failed = [...s.deliveries.docs.values()].filter((d) => d.status === "failed");
  expect(failed).toHaveLength(count);
  return s;
}

describe("recovering a webhook's failed deliveries", () => {
  it("sends every delivery that failed since T again, oldest first, one at a time, each once with its own webhook-id", async () => {
    const s = await failedDeliveries(30);
    const posted = s.posts.length;
    const docs = [...s.deliveries.docs.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    expect(await s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" })).toEqual({ count: 30 });
    s.concurrency.most = 0;
    await s.runRecoverySteps();
    expect(s.concurrency.most).toBe(1); // the recovery's one at a time: each after the previous outcome
    const resent = s.posts.slice(posted).map((p) => p.headers["webhook-id"]);
    expect(resent).toEqual(docs.map((d) => d.id));
    for (const d of s.deliveries.docs.values()) expect(d).toMatchObject({ status: "succeeded", attempts: 4 });
    expect(await s.recoveries.get("wh_a")).toMatchObject({ status: "done", count: 30, sent: 30, step: 2 });
    // Steps of 25: two messages, the second queued by the first.
    const steps = s.bus.sent.filter((m) => "recovery" in (m.message.body as object)).map((m) => m.message.body);
    expect(steps).toEqual([{ recovery: { webhookId: "wh_a", step: 0 } }, { recovery: { webhookId: "wh_a", step: 1 } }]);
    // Nothing failed since: nothing to send.
    expect(await s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" })).toEqual({ count: 0 });
  });

  it("takes only what ended failed at or after `since`, and not what fails again once the recovery began", async () => {
    const s = await failedDeliveries(3);
    const docs = [...s.deliveries.docs.values()].sort((a, b) =>
      (a.completedAt ?? "").localeCompare(b.completedAt ?? ""),
    );
    const since = docs[1]!.completedAt!;
    expect(await s.recover.execute({ webhookId: "wh_a", since })).toEqual({ count: 2 });
    const before = s.posts.length;
    await s.runRecoverySteps();
    expect(
      s.posts
        .slice(before)
        .map((p) => p.headers["webhook-id"])
        .sort(),
    ).toEqual(
      docs
        .slice(1)
        .map((d) => d.id)
        .sort(),
    );
    expect((await s.deliveries.get(docs[0]!))?.status).toBe("failed");
  });

  it("a recovered delivery that fails again goes on with a fresh retry schedule", async () => {
    const s = await failedDeliveries(1);
    const [doc] = [...s.deliveries.docs.values()];
    await s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" });
    s.answers.push({ statusCode: 502, durationMs: 1 });
    await s.runRecoverySteps();
    const due = new Date(s.clock.now().getTime() + 5_000).toISOString(); // the schedule's first delay, again
    expect(await s.deliveries.get(doc!)).toMatchObject({
      status: "pending",
      attempts: 4,
      scheduleOffset: 3,
      nextAttemptAt: due,
    });
    expect(await s.recoveries.get("wh_a")).toMatchObject({ status: "done", sent: 1 });
  });

  it("a copy of a step's message that comes while the step is leased, or after it moved on, sends nothing", async () => {
    const s = await failedDeliveries(2);
    await s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" });
    let release = (): void => {};
    s.gate.hold = new Promise((r) => (release = r));
    const before = s.posts.length;
    const running = s.runRecovery.execute({ webhookId: "wh_a", step: 0 });
    await new Promise((r) => setTimeout(r, 10));
    await s.runRecovery.execute({ webhookId: "wh_a", step: 0 }); // leased: the copy leaves it
    expect(s.posts.length - before).toBe(1);
    release();
    await running;
    await s.runRecovery.execute({ webhookId: "wh_a", step: 0 }); // stale: the recovery is done
    expect(s.posts.length - before).toBe(2);
    expect(await s.recoveries.get("wh_a")).toMatchObject({ status: "done", sent: 2 });
  });

  it("a step lost with its process is taken up by the sweep once its lease and the grace period are over", async () => {
    const s = await failedDeliveries(2);
    await s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" });
    // The first step's message is lost (the process died before handling it).
    expect(await s.sweep.execute()).toMatchObject({ recoveries: 0 });
    s.advance(61);
    expect(await s.sweep.execute()).toMatchObject({ recoveries: 1 });
    const before = s.posts.length;
    await s.runRecovery.execute({ webhookId: "wh_a", step: 0 });
    expect(s.posts.length - before).toBe(2);
  });

  it("refuses a disabled or unknown webhook, and a second recovery while one runs", async () => {
    const s = await failedDeliveries(1);
    await expect(s.recover.execute({ webhookId: "wh_nope", since: "2026-01-01T00:00:00Z" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" });
    await expect(s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("0 of 1 sent"),
    });
    await s.directory.disable("wh_a", "by hand");
    await expect(s.recover.execute({ webhookId: "wh_a", since: "2026-01-01T00:00:00Z" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    // A step that finds the webhook disabled ends the recovery, sending nothing.
    const before = s.posts.length;
    await s.runRecoverySteps();
    expect(s.posts.length).toBe(before);
    expect(await s.recoveries.get("wh_a")).toMatchObject({ status: "done", stoppedReason: "the webhook was disabled" });
  });
});

describe("a webhook whose every delivery fails", () => {
  it("is disabled after WEBHOOK_DISABLE_AFTER_DAYS of failures, with the reason, its pending deliveries failed", async () => {
    const s = setup(failing(20));
    s.directory.add("wh_a");
    await s.fanOut.execute([settled(1)]);
    expect(s.directory.targets.get("wh_a")?.failingSince).toBe("2026-01-01T00:00:00.000Z");
    s.advance(4 * 86_400);
    await s.fanOut.execute([settled(2)]);
    expect(s.directory.targets.get("wh_a")?.status).toBe("enabled");
    s.advance(86_400);
    await s.fanOut.execute([settled(3)]);
    expect(s.directory.disabled).toEqual([
      [
        "wh_a",
        expect.stringMatching(/^every delivery failed for 5 days: no attempt succeeded since 2026-01-01T00:00:00.000Z/),
      ],
    ]);
    for (const d of s.deliveries.docs.values())
      expect(d).toMatchObject({ status: "failed", failureReason: expect.stringContaining("every delivery failed") });
  });

  it("a delivery in between starts the count again", async () => {
    const s = setup([...failing(1), { statusCode: 200, durationMs: 1 }, ...failing(5)]);
    s.directory.add("wh_a");
    await s.fanOut.execute([settled(1)]);
    s.advance(3 * 86_400);
    await s.fanOut.execute([settled(2)]);
    expect(s.directory.targets.get("wh_a")?.failingSince).toBeUndefined();
    await s.fanOut.execute([settled(3)]);
    s.advance(3 * 86_400);
    await s.fanOut.execute([settled(4)]);
    expect(s.directory.disabled).toEqual([]);
  });
});
