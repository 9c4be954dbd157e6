import { describe, expect, it } from "vitest";
import { LoginGuard } from "./login-guard";

/** The guard on a clock the test moves. */
const guarded = () => {
  let now = 1_000_000;
  const guard = new LoginGuard({ backoffSeconds: 1, maxBackoffSeconds: 8 }, () => now);
  return { guard, advance: (ms: number) => void (now += ms) };
};

describe("SFTP login backoff", () => {
  it("waits after each failure of an address, doubling up to the maximum", () => {
    const { guard, advance } = guarded();
    expect(guard.admit("10.0.0.1")).toBe(0);
    const waits: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      guard.failed("10.0.0.1");
      const wait = guard.admit("10.0.0.1");
      waits.push(wait);
      advance(wait ?? 0);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it("never slows another address: wrong passwords for a login name do not delay its provider elsewhere", () => {
    const { guard } = guarded();
    // Eight guesses from one address, as fast as the guard lets them queue.
    for (let i = 0; i < 8; i++) {
      guard.admit("10.0.0.2");
      guard.failed("10.0.0.2");
    }
    expect(guard.admit("10.0.0.3")).toBe(0);
    // The guesser's own address waits (here refused unchecked: its queue is past the maximum).
    expect(guard.admit("10.0.0.2")).toBeUndefined();
  });

  it("queues attempts within a delay one delay apart, refuses those past the maximum, and forgets after a quarter of an hour", () => {
    const { guard, advance } = guarded();
    guard.failed("10.0.0.1");
    guard.failed("10.0.0.1");
    // Delay 2 s: a burst gets 2 s, 4 s, 6 s, 8 s, then nothing.
    expect([1, 2, 3, 4, 5, 6].map(() => guard.admit("10.0.0.1"))).toEqual([
      2000,
      4000,
      6000,
      8000,
      undefined,
      undefined,
    ]);
    advance(15 * 60 * 1000 + 10_000);
    expect(guard.admit("10.0.0.1")).toBe(0);
  });

  it("remembers a bounded number of addresses", () => {
    const { guard } = guarded();
    for (let i = 0; i < 30_000; i++) guard.failed(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    expect(guard.remembered).toBeLessThanOrEqual(10_000);
  });
});
