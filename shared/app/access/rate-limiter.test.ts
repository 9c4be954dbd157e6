import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosCounterStore } from "../../adapters/cosmos/cosmos-counter-store";
import { RateLimiter } from "./rate-limiter";

describe("RateLimiter on the Cosmos stand-in", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let store: CosmosCounterStore;
  let now = Date.UTC(2026, 0, 5, 10, 30, 15);
  const clock = { now: () => new Date(now) };
  const limits = {
    standard: { perMinute: 3, perDay: 5 },
    premium: { perMinute: 10, perDay: 100 },
    anonymous: { perMinute: 2, perDay: 4 },
  };

  beforeAll(async () => {
    cosmos = await startCosmos();
    store = new CosmosCounterStore(cosmos.db.container("counters"));
  });
  afterAll(async () => cosmos.stop());

  it("counts per minute, resets at the next minute, and reports the tighter window", async () => {
    const limiter = new RateLimiter(limits, store, clock);
    const minuteEnd = Math.floor(Date.UTC(2026, 0, 5, 10, 31, 0) / 1000);
    const first = await limiter.consume("client:a", "standard");
    expect(first).toEqual({ limit: 3, remaining: 2, reset: minuteEnd, exceeded: false });
    await limiter.consume("client:a", "standard");
    expect((await limiter.consume("client:a", "standard")).remaining).toBe(0);
    const over = await limiter.consume("client:a", "standard");
    expect(over.exceeded).toBe(true);
    expect(over.retryAfter).toBe(45);

    now += 60_000; // next minute: the minute window resets, the day has 1 left (5 - 4)
    const next = await limiter.consume("client:a", "standard");
    expect(next.exceeded).toBe(false);
    expect(next.remaining).toBe(0);
    const dayEnd = Math.floor(Date.UTC(2026, 0, 6) / 1000);
    expect(next.reset).toBe(dayEnd);
    const dayOver = await limiter.consume("client:a", "standard");
    expect(dayOver.exceeded).toBe(true);
    expect(dayOver.retryAfter).toBe(dayEnd - Math.floor(now / 1000));

    now = Date.UTC(2026, 0, 6, 0, 0, 1); // a new day
    expect((await limiter.consume("client:a", "standard")).exceeded).toBe(false);
  });

  it("keeps subjects and tiers apart", async () => {
    const limiter = new RateLimiter(limits, store, clock);
    for (let i = 0; i < 2; i++) expect((await limiter.consume("ip:10.0.0.1", "anonymous")).exceeded).toBe(false);
    expect((await limiter.consume("ip:10.0.0.1", "anonymous")).exceeded).toBe(true);
    expect((await limiter.consume("ip:10.0.0.2", "anonymous")).exceeded).toBe(false);
    expect((await limiter.consume("client:p", "premium")).limit).toBe(10);
  });

  it("overshoots by at most a few under concurrency", async () => {
    const limiter = new RateLimiter({ ...limits, premium: { perMinute: 50, perDay: 1000 } }, store, clock);
    const decisions = await Promise.all(Array.from({ length: 80 }, () => limiter.consume("client:burst", "premium")));
    const allowed = decisions.filter((d) => !d.exceeded).length;
    // Concurrent hits are written together, and each still gets its own place in the count.
    expect(allowed).toBe(50);
    expect(new Set(decisions.filter((d) => !d.exceeded).map((d) => d.remaining)).size).toBe(50);
  });

  it("holds across instances: two limiters share one count", async () => {
    const a = new RateLimiter(limits, store, clock);
    const b = new RateLimiter(limits, store, clock);
    const decisions = await Promise.all([a, b, a, b, a].map((l) => l.consume("client:shared", "standard")));
    expect(decisions.filter((d) => d.exceeded)).toHaveLength(2);
  });

  it("gives each window a time to live of more than a day, so Cosmos DB deletes it once its day is over", async () => {
    const limiter = new RateLimiter(limits, store, clock);
    await limiter.consume("client:old", "standard");
    const key = `rate|client:old|${new Date(now).toISOString().slice(0, 10)}`;
    const { resource } = await cosmos.db.container("counters").item(key, key).read<{ ttl: number }>();
    expect(resource?.ttl).toBeGreaterThan(86_400);
  });
});
