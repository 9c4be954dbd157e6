import type { Tier } from "../../domain/api-client";
import type { Clock } from "../../ports/clock";
import type { CounterStore, WindowCounts } from "../../ports/counter-store";

export interface WindowLimits {
  perMinute: number;
  perDay: number;
}

export type RateLimitTier = Tier | "anonymous";

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the window that `remaining` describes resets. */
  reset: number;
  exceeded: boolean;
  /** Seconds until a retry can succeed; set when exceeded. */
  retryAfter?: number;
}

const DAY_MS = 86_400_000;
/** A day window is written at least once on its day, so a day (and a margin) after any hit it is no longer needed. */
const KEEP_WINDOW_SECONDS = DAY_MS / 1000 + 3600;

interface Waiter {
  resolve(counts: WindowCounts): void;
  reject(error: unknown): void;
}

/**
 * Fixed-window limits per minute and per UTC day, counted in the shared counter store. Hits on one
 * window that arrive while its previous write is in flight are written together as one atomic
 * increment; each still gets its own exact position in the count.
 */
export class RateLimiter {
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    private readonly limits: Record<RateLimitTier, WindowLimits>,
    private readonly counters: CounterStore,
    private readonly clock: Clock,
  ) {}

  async consume(subject: string, tier: RateLimitTier): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const dayStart = now - (now % DAY_MS);
    const minuteOfDay = Math.floor((now - dayStart) / 60_000);
    const minuteReset = Math.floor((dayStart + (minuteOfDay + 1) * 60_000) / 1000);
    const dayReset = Math.floor((dayStart + DAY_MS) / 1000);
    const dayKey = new Date(dayStart).toISOString().slice(0, 10);

    const counts = await this.hit(subject, dayKey, minuteOfDay);
    const { perMinute, perDay } = this.limits[tier];
    const minuteLeft = perMinute - counts.minute;
    const dayLeft = perDay - counts.day;
    const dayIsTighter = dayLeft < minuteLeft;
    const reset = dayIsTighter ? dayReset : minuteReset;
    const exceeded = minuteLeft < 0 || dayLeft < 0;
    const decision: RateLimitDecision = {
      limit: perMinute,
      remaining: Math.max(0, Math.min(minuteLeft, dayLeft)),
      reset,
      exceeded,
    };
    if (exceeded) {
      const until = dayLeft < 0 ? dayReset : minuteReset;
      decision.retryAfter = Math.max(1, until - Math.floor(now / 1000));
    }
    return decision;
  }

  private hit(subject: string, dayKey: string, minuteOfDay: number): Promise<WindowCounts> {
    const key = `${subject}|${dayKey}|${minuteOfDay}`;
    return new Promise<WindowCounts>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue !== undefined) {
        queue.push({ resolve, reject });
        return;
      }
      this.queues.set(key, [{ resolve, reject }]);
      void this.drain(key, subject, dayKey, minuteOfDay);
    });
  }

  /** Writes the queued hits of one window, batch after batch, until none are waiting. */
  private async drain(key: string, subject: string, dayKey: string, minuteOfDay: number): Promise<void> {
    for (;;) {
      const batch = this.queues.get(key) ?? [];
      if (batch.length === 0) {
        this.queues.delete(key);
        return;
      }
      this.queues.set(key, []);
      try {
        const totals = await this.counters.hitRateWindow(
          subject,
          dayKey,
          minuteOfDay,
          KEEP_WINDOW_SECONDS,
          batch.length,
        );
        batch.forEach((waiter, i) => {
          const before = batch.length - 1 - i;
          waiter.resolve({ day: totals.day - before, minute: totals.minute - before });
        });
      } catch (error) {
        batch.forEach((waiter) => waiter.reject(error));
      }
    }
  }
}
