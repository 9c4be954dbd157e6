import type { Tier } from "../domain/api-client";
import type { Clock } from "../ports/clock";
import type { CounterStore } from "../ports/counter-store";

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

/** Fixed-window limits per minute and per UTC day, counted in the shared counter store. */
export class RateLimiter {
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

    const counts = await this.counters.hitRateWindow(subject, dayKey, minuteOfDay, new Date(dayStart + 2 * DAY_MS));
    const { perMinute, perDay } = this.limits[tier];
    const minuteLeft = perMinute - counts.minute;
    const dayLeft = perDay - counts.day;
    const dayIsTighter = dayLeft < minuteLeft;
    const reset = dayIsTighter ? dayReset : minuteReset;
    const exceeded = minuteLeft < 0 || dayLeft < 0;
    const decision: RateLimitDecision = { limit: perMinute, remaining: Math.max(0, Math.min(minuteLeft, dayLeft)), reset, exceeded };
    if (exceeded) {
      const until = dayLeft < 0 ? dayReset : minuteReset;
      decision.retryAfter = Math.max(1, until - Math.floor(now / 1000));
    }
    return decision;
  }
}
