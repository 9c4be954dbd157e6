/**
 * The sample's calendar and its numbers over time: the dates prices and FX rates are published on,
 * the snapshot dates, and a seeded random walk, so every run of the seed sends the same values.
 */

/** The sample's dates: weekdays of Q4 2024, each month-end of 2025, and March 2026 (the workbook's month). */
export function sampleDates(): string[] {
  const dates: string[] = [];
  const add = (from: string, to: string, keep: (d: Date) => boolean): void => {
    for (let d = new Date(`${from}T00:00:00Z`); d <= new Date(`${to}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + 1))
      if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6 && keep(d)) dates.push(d.toISOString().slice(0, 10));
  };
  add("2024-10-01", "2024-12-31", () => true);
  // The last weekday of each month of 2025 (and February 2026).
  add("2025-01-01", "2026-02-28", (d) => {
    const next = new Date(d);
    do next.setUTCDate(next.getUTCDate() + 1);
    while (next.getUTCDay() === 0 || next.getUTCDay() === 6);
    return next.getUTCMonth() !== d.getUTCMonth();
  });
  add("2026-03-02", "2026-04-01", () => true);
  return dates;
}

/** The dates positions are snapshotted on: the month-ends of Q4 2024 and 31 March 2026. */
export const SNAPSHOT_DATES = ["2024-10-31", "2024-11-29", "2024-12-31", "2026-03-31"] as const;

/** A small deterministic generator (mulberry32), seeded from a name: the same walk on every run. */
function randomFrom(name: string): () => number {
  let state = [...name].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A walk over the dates from `start`: each step at most ±`step` (well under the price-jump threshold,
 * so the sample raises no jump exceptions), rounded to `decimals`.
 */
export function walk(
  name: string,
  start: number,
  dates: readonly string[],
  step: number,
  decimals: number,
): Map<string, number> {
  const random = randomFrom(name);
  const values = new Map<string, number>();
  let value = start;
  for (const date of dates) {
    values.set(date, Number(value.toFixed(decimals)));
    value *= 1 + (random() * 2 - 1) * step + step / 20; // a slight drift upwards
  }
  return values;
}
