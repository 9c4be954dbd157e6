/** One fixed-window rate counter: the day total and the count of the current minute. */
export interface WindowCounts {
  day: number;
  minute: number;
}

/** Shared rate-limit counters that hold across instances. */
export interface CounterStore {
  /**
   * Counts `hits` requests for `subject` in the given day and minute windows, atomically, and returns
   * the totals after them. The store may forget the window once `keepSeconds` pass without a hit.
   */
  hitRateWindow(
    subject: string,
    dayKey: string,
    minuteOfDay: number,
    keepSeconds: number,
    hits: number,
  ): Promise<WindowCounts>;
}
