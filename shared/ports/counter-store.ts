/** One fixed-window rate counter: the day total and the count of the current minute. */
export interface WindowCounts {
  day: number;
  minute: number;
}

/** Shared counters (rate-limit windows, later idempotency keys) that hold across instances. */
export interface CounterStore {
  /** Counts `hits` requests for `subject` in the given day and minute windows, atomically, and returns the totals after them. */
  hitRateWindow(subject: string, dayKey: string, minuteOfDay: number, expiresAt: Date, hits: number): Promise<WindowCounts>;
  /** Deletes every counter whose expiry has passed; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}
