import { z } from "zod";

const instantOrDate = (edge: "start" | "end") =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], {
      error: "must be an ISO 8601 time (2024-03-28T09:30:00Z) or date (2024-03-28)",
    })
    .transform((value) =>
      // A date means its whole day (UTC): from its first millisecond, to its last.
      value.length === 10
        ? `${value}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}Z`
        : new Date(value).toISOString(),
    );

/**
 * `from` and `to` of a list filtered on a stored time: an ISO time (any offset) or a date, inclusive,
 * compared as stored (UTC, milliseconds: `toISOString()`), so `…T10:00:00Z` finds `…T10:00:00.000Z`.
 */
export const fromInstant = instantOrDate("start").meta({
  description: "Inclusive lower bound: an ISO 8601 time, or a date (from its start, UTC)",
  example: "2024-03-28T00:00:00Z",
});
export const toInstant = instantOrDate("end").meta({
  description: "Inclusive upper bound: an ISO 8601 time, or a date (to its end, UTC)",
  example: "2024-03-28T23:59:59Z",
});
