// @ts-check
// How values read on screen: dates in the reader's time zone (or an export's), sizes, schedules.

/** @param {string | null | undefined} iso @param {string} [timeZone] */
export function dateTime(iso, timeZone) {
  if (iso === null || iso === undefined || iso === "") return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat("en-GB", {
    dateStyle: "medium",
    timeStyle: "medium",
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
}

/** @param {string} iso @param {string} timeZone e.g. "Wed 26 Nov 2026, 06:30 GMT" */
export function zonedTime(iso, timeZone) {
  return new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone,
    timeZoneName: "short",
  }).format(new Date(iso));
}

/** @param {number | undefined} bytes */
export function size(bytes) {
  if (bytes === undefined) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** @param {number} n */
export const count = (n) => new Intl.NumberFormat("en-GB").format(n);

export const weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
