import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosIdempotencyStore, LEASE_MS } from "../../adapters/cosmos/cosmos-idempotency-store";
import { AppError } from "../../domain/errors";
import type { Clock } from "../../ports/clock";
import { Idempotency } from "./idempotency";

class FakeClock implements Clock {
  constructor(private at = Date.parse("2026-03-01T09:00:00Z")) {}
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

const ok = (body: unknown) => async () => ({ status: 200, body });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
let n = 0;
const freshKey = (): string => `k-${process.pid}-${n++}`;

describe("Idempotency-Key records (on the Cosmos stand-in, with a fake clock)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let store: CosmosIdempotencyStore;
  beforeAll(async () => {
    cosmos = await startCosmos();
    store = new CosmosIdempotencyStore(cosmos.db.container("counters"));
  });
  afterAll(async () => cosmos.stop());

  it("a transient 409 (a write that lost a race) or a 503 is not replayed: the retry runs again", async () => {
    const idem = new Idempotency(store, new FakeClock());
    for (const transient of [
      new AppError("CONFLICT", "changed by another import at the same time; retry", { retryable: true }),
      new AppError("SERVICE_UNAVAILABLE", "The data store is busy; retry shortly"),
    ]) {
      const key = freshKey();
      await expect(idem.run("s", key, "body", () => Promise.reject(transient))).rejects.toBe(transient);
      const retried = await idem.run("s", key, "body", ok({ done: true }));
      expect(retried).toEqual({ status: 200, body: { done: true }, replayed: false });
    }
  });

  it("a final 409 is still replayed", async () => {
    const idem = new Idempotency(store, new FakeClock());
    const key = freshKey();
    await expect(
      idem.run("s", key, "body", () => Promise.reject(new AppError("CONFLICT", "already resolved"))),
    ).rejects.toThrow("already resolved");
    const again = await idem.run("s", key, "body", ok({ done: true }));
    expect(again).toMatchObject({ status: 409, replayed: true });
  });

  it("an expired key is taken over by exactly one of two racers", async () => {
    const clock = new FakeClock();
    const key = freshKey();
    await new Idempotency(store, clock).run("s", key, "old body", ok({ first: true }));
    clock.advance(25 * 3_600_000);
    const results = await Promise.all([
      store.begin("s", key, "new body", clock.now()),
      store.begin("s", key, "new body", clock.now()),
    ]);
    expect(results.map((r) => r.state).sort()).toEqual(["in-progress", "new"]);
  });

  it("complete and release by a caller that no longer owns the key are refused", async () => {
    const clock = new FakeClock();
    const key = freshKey();
    const first = await store.begin("s", key, "h", clock.now());
    if (first.state !== "new") throw new Error("expected to own the key");
    clock.advance(LEASE_MS + 1);
    // The first caller's lease ran out (no heartbeat): a second caller takes the key over.
    const second = await store.begin("s", key, "h", clock.now());
    if (second.state !== "new") throw new Error("expected a takeover");
    expect(await store.complete("s", key, first.owner, { status: 200, body: "stale" }, clock.now())).toBe(false);
    await store.release("s", key, first.owner);
    expect(await store.begin("s", key, "h", clock.now())).toEqual({ state: "in-progress" });
    expect(await store.complete("s", key, second.owner, { status: 201, body: "fresh" }, clock.now())).toBe(true);
    expect(await store.begin("s", key, "h", clock.now())).toEqual({
      state: "replay",
      response: { status: 201, body: "fresh" },
    });
  });

  it("a long-running request's key is not taken over while its lease is renewed", async () => {
    const clock = new FakeClock();
    const idem = new Idempotency(store, clock, 10);
    const key = freshKey();
    let finish: (value: { status: number; body: unknown }) => void = () => {};
    const running = idem.run("s", key, "body", () => new Promise((resolve) => (finish = resolve)));
    // Real time for the heartbeat's timer to run between the fake clock's steps (it renews on a timer, not on a condition to poll).
    await sleep(30);
    // Twelve minutes pass (more than two leases); the heartbeat renews the lease along the way.
    for (let i = 0; i < 12; i++) {
      clock.advance(60_000);
      await sleep(40);
    }
    await expect(idem.run("s", key, "body", ok({ second: true }))).rejects.toMatchObject({ code: "CONFLICT" });
    finish({ status: 202, body: { first: true } });
    expect(await running).toEqual({ status: 202, body: { first: true }, replayed: false });
    expect(await idem.run("s", key, "body", ok({ second: true }))).toEqual({
      status: 202,
      body: { first: true },
      replayed: true,
    });
  });

  it("each write sets a ttl that outlasts the record's 24 h", async () => {
    const clock = new FakeClock();
    const idem = new Idempotency(store, clock);
    const key = freshKey();
    await idem.run("s", key, "body", ok({ done: true }));
    const id = `idem|s|${key}`;
    const { resource } = await cosmos.db.container("counters").item(id, id).read<{ ttl: number; expiresAt: string }>();
    expect(resource?.ttl).toBeGreaterThanOrEqual(86_400);
    expect(resource?.ttl).toBeLessThanOrEqual(86_400 + 120);
  });
});
