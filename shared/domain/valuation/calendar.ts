const DAY_MS = 86_400_000;

function epochDay(date: string): number {
  // Parsed as UTC midnight so that time zones and daylight saving never shift a day count.
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return Math.round(ms / DAY_MS);
}

/** Whole calendar days from `from` to `to` (YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return epochDay(to) - epochDay(from);
}
