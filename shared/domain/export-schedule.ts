import { Cron } from "croner";
import { TZDate } from "@date-fns/tz";
import { addDays, endOfMonth, format, startOfISOWeek, subMonths } from "date-fns";
import { z } from "zod";

/** True for a time zone the runtime's Intl knows (IANA names such as `Europe/London`, and `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name.trim() === "" || name !== name.trim()) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const exportFrequencies = ["daily", "weekly", "monthly"] as const;

export const exportScheduleSchema = z
  .strictObject({
    frequency: z.enum(exportFrequencies),
    time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:mm, 00:00 to 23:59")
      .meta({ description: "Local time of day in `timezone`" }),
    timezone: z
      .string()
      .max(100)
      .refine(isTimeZone, "is not an IANA time zone (e.g. Europe/London, America/New_York, UTC)")
      .default("UTC")
      .meta({ description: "IANA time zone of `time` (default UTC)" }),
    dayOfWeek: z
      .number()
      .int()
      .min(1)
      .max(7)
      .optional()
      .meta({ description: "1 = Monday … 7 = Sunday; weekly only, required there" }),
    dayOfMonth: z
      .union([z.number().int().min(1).max(28), z.literal("last")], { error: 'must be a day 1 to 28, or "last"' })
      .optional()
      .meta({ description: '1 to 28, or "last"; monthly only, required there' }),
  })
  .superRefine((s, ctx) => {
    if (s.frequency === "weekly" && s.dayOfWeek === undefined)
      ctx.addIssue({ code: "custom", path: ["dayOfWeek"], message: "is required for a weekly schedule" });
    if (s.frequency !== "weekly" && s.dayOfWeek !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["dayOfWeek"],
        message: `applies to weekly schedules only, not ${s.frequency}`,
      });
    if (s.frequency === "monthly" && s.dayOfMonth === undefined)
      ctx.addIssue({ code: "custom", path: ["dayOfMonth"], message: "is required for a monthly schedule" });
    if (s.frequency !== "monthly" && s.dayOfMonth !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["dayOfMonth"],
        message: `applies to monthly schedules only, not ${s.frequency}`,
      });
  })
  .meta({ id: "ExportSchedule" });
export type ExportSchedule = z.infer<typeof exportScheduleSchema>;

/** The schedule as a five-field cron pattern in its own time zone (croner: `L` = last day of the month, 7 = Sunday as in ISO). */
function cronPattern(schedule: ExportSchedule): string {
  const [hour, minute] = schedule.time.split(":").map(Number);
  const day = schedule.frequency === "monthly" ? String(schedule.dayOfMonth) : "*";
  const weekday = schedule.frequency === "weekly" ? String(schedule.dayOfWeek) : "*";
  return `${minute} ${hour} ${day === "last" ? "L" : day} * ${weekday}`;
}

/**
 * The first scheduled time strictly after `after`, in UTC. The time of day is read in the schedule's
 * time zone, so it stays at the same wall-clock time across daylight-saving changes; a time that does
 * not exist that day (skipped by a spring-forward) runs at the first moment after the gap, and a time
 * that exists twice (fall-back) runs once, at its first occurrence.
 */
export function nextRunAt(schedule: ExportSchedule, after: Date): Date {
  const next = new Cron(cronPattern(schedule), { timezone: schedule.timezone, paused: true }).nextRun(after);
  if (next === null) throw new Error(`schedule ${cronPattern(schedule)} has no next run`);
  return next;
}

export const exportPeriods = ["previous-day", "previous-week", "previous-month", "all"] as const;
export type ExportPeriod = (typeof exportPeriods)[number];

/** The default `period` of a schedule's frequency: the span since the previous run. */
export const defaultPeriod = (frequency: ExportSchedule["frequency"]): ExportPeriod =>
  frequency === "daily" ? "previous-day" : frequency === "weekly" ? "previous-week" : "previous-month";

const isoDate = (d: Date): string => format(d, "yyyy-MM-dd");

/**
 * The dates a `period` selects for a run scheduled at `scheduledFor`, relative to that moment's local
 * date in `timezone`: the day before, the ISO week (Monday to Sunday) before, or the calendar month
 * before. `all` selects every date (undefined).
 */
export function periodWindow(
  period: ExportPeriod,
  scheduledFor: Date,
  timezone: string,
): { from: string; to: string } | undefined {
  const local = new TZDate(scheduledFor.getTime(), timezone);
  // A plain calendar date (no time zone arithmetic left to go wrong).
  const today = new Date(local.getFullYear(), local.getMonth(), local.getDate());
  switch (period) {
    case "all":
      return undefined;
    case "previous-day": {
      const day = isoDate(addDays(today, -1));
      return { from: day, to: day };
    }
    case "previous-week": {
      const monday = addDays(startOfISOWeek(today), -7);
      return { from: isoDate(monday), to: isoDate(addDays(monday, 6)) };
    }
    case "previous-month": {
      const first = subMonths(new Date(today.getFullYear(), today.getMonth(), 1), 1);
      return { from: isoDate(first), to: isoDate(endOfMonth(first)) };
    }
  }
}
