import { describe, expect, it } from "vitest";
import { AppError } from "../../domain/errors";
import { AGAIN, CONFLICTS, retry, stillContended, THROTTLING, type RetryBudget } from "./retry";

const instant: RetryBudget = { attempts: 4, delayMs: () => 0 };

describe("retry: the one loop of race-prone store writes", () => {
  it("tries again while the attempt answers AGAIN, numbering attempts from 1, and answers the first other result", async () => {
    const seen: number[] = [];
    const result = await retry(
      instant,
      async (n) => {
        seen.push(n);
        return n < 3 ? AGAIN : `done on ${n}`;
      },
      () => "gave up",
    );
    expect(result).toBe("done on 3");
    expect(seen).toEqual([1, 2, 3]);
  });

  it("answers what `exhausted` gives once the budget is spent, or throws what it throws", async () => {
    let calls = 0;
    expect(
      await retry(
        instant,
        async () => (calls++, AGAIN),
        () => false,
      ),
    ).toBe(false);
    expect(calls).toBe(instant.attempts);
    await expect(
      retry(
        instant,
        async () => AGAIN,
        () => stillContended("portfolio p1"),
      ),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      retryable: true,
      message: "portfolio p1 is being changed by other requests at the same time; retry",
    });
  });

  it("lets an attempt's own error through at once", async () => {
    const boom = new AppError("NOT_FOUND", "gone");
    let calls = 0;
    await expect(
      retry(
        CONFLICTS,
        async () => {
          calls++;
          throw boom;
        },
        () => undefined,
      ),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
  });

  it("names two budgets: conflicts retry soon with jitter, throttling backs off exponentially to about 3 s in all", () => {
    for (let n = 1; n < CONFLICTS.attempts; n++) {
      const delay = CONFLICTS.delayMs(n);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(50);
    }
    const waits = Array.from({ length: THROTTLING.attempts - 1 }, (_, i) => THROTTLING.delayMs(i + 1));
    expect(waits[0]).toBe(25);
    expect(waits.every((w, i) => i === 0 || w === 2 * (waits[i - 1] ?? 0))).toBe(true);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThan(2_000);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(4_000);
  });
});
