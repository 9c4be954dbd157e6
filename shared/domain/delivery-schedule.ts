/** The default WEBHOOK_RETRY_SCHEDULE: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE = "5,300,1800,7200,18000,36000,50400,72000,86400";

/** Spread of each delay (±10%), so deliveries that failed together do not all come back together. */
export const RETRY_JITTER = 0.1;

/**
 * Seconds to wait before the next attempt, or undefined when the schedule is spent (the delivery is
 * then failed). `retriesSoFar` counts the failed attempts of the current round (a manual retry
 * starts a new round); the answer's Retry-After is a floor, never shortened by the jitter.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  retriesSoFar: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[retriesSoFar - 1];
  if (base === undefined) return undefined;
  const jittered = base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random());
  return Math.max(jittered, retryAfterSeconds ?? 0);
}
