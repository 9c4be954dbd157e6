import { describe, expect, it } from "vitest";
import { LoginGuard } from "./login-guard";

/** The guard on a clock the test moves. */
const guarded = () => {
  let now = 1_000_000;
  const guard = new LoginGuard({ backoffSeconds: 1, maxBackoffSeconds: 8 }, () => now);
  return { guard, advance: (ms: number) => void (now += ms) };
};

describe("SFTP login backoff", () => {
  it("waits after each failure, doubling up to the maximum; a success clears the login name", () => {
    const { guard, advance } = guarded();
    expect(guard.admit("feed-a", "10.0.0.1")).toBe(0);
    const waits: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      guard.failed("feed-a", "10.0.0.1");
      const wait = guard.admit("feed-a", "10.0.0.9");
      waits.push(wait);
      advance(wait ?? 0);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    guard.succeeded("feed-a");
    expect(guard.admit("feed-a", "10.0.0.9")).toBe(0);
  });

  it("backs off an address whatever login names it tries", () => {
    const { guard } = guarded();
    for (const name of ["feed-1", "feed-2", "feed-3"]) guard.failed(name, "10.0.0.2");
    expect(guard.admit("feed-4", "10.0.0.2")).toBe(4000);
    expect(guard.admit("feed-4", "10.0.0.3")).toBe(0);
  });

  it("queues attempts within a delay one delay apart, refuses those past the maximum, and forgets after a quarter of an hour", () => {
    const { guard, advance } = guarded();
    guard.failed("feed-a", "10.0.0.1");
    guard.failed("feed-a", "10.0.0.1");
    // Delay 2 s: a burst gets 2 s, 4 s, 6 s, 8 s, then nothing.
    expect([1, 2, 3, 4, 5, 6].map(() => guard.admit("feed-a", "10.0.0.1"))).toEqual([
      2000,
      4000,
      6000,
      8000,
      undefined,
      undefined,
    ]);
    advance(15 * 60 * 1000 + 10_000);
    expect(guard.admit("feed-a", "10.0.0.1")).toBe(0);
  });

  it("remembers a bounded number of names and addresses", () => {
    const { guard } = guarded();
    for (let i = 0; i < 30_000; i++) guard.failed(`made-up-${i}`, `10.1.${i >> 8}.${i & 255}`);
    expect(guard.remembered).toBeLessThanOrEqual(10_000);
  });
});
