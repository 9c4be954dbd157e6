import { Cron } from "croner";
import { z } from "zod";

/** The intervals `{ every }` takes, in minutes; each divides a day, so the slots repeat identically every day. */
export const everyMinutes = { "15m": 15, "1h": 60, "1d": 1440 } as const;

const ncrontab = z
  .string()
  .trim()
  .max(200)
  .superRefine((expression, ctx) => {
    const problem = ncrontabProblem(expression);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description: "NCRONTAB, six fields (second minute hour day month day-of-week), UTC; at most once a minute",
    example: "0 30 6 * * 1-5",
  });

const every = z
  .strictObject({
    every: z.enum(["15m", "1h", "1d"]),
    at: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: "must be HH:mm (00:00 to 23:59)" })
      .optional()
      .meta({
        description:
          "UTC time the slots are anchored on (default 00:00): 1d runs at it, 1h at its minute, 15m at its minute modulo 15",
      }),
  })
  .meta({ id: "BlobSourceEvery" });

/** When a blob source runs: an NCRONTAB expression (UTC), or a fixed interval anchored on a time of day. */
export const blobSourceScheduleSchema = z.union([ncrontab, every]).meta({ id: "BlobSourceSchedule" });
export type BlobSourceSchedule = z.infer<typeof blobSourceScheduleSchema>;

/**
 * Why `expression` is not a usable schedule, or undefined. Six fields as Azure Functions writes them;
 * the seconds field must be one value, because the scheduler ticks once a minute and a due time is
 * claimed per minute at most.
 */
export function ncrontabProblem(expression: string): string | undefined {
  const fields = expression.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 6)
    return `must have six fields (second minute hour day month day-of-week), not ${fields.length}`;
  if (!/^[0-5]?\d$/.test(fields[0] ?? ""))
    return "the seconds field must be a single value (0-59): a blob source runs at most once a minute";
  let cron: Cron;
  try {
    cron = new Cron(fields.join(" "), { timezone: "UTC", paused: true });
  } catch (error) {
    return `is not a valid NCRONTAB expression: ${(error as Error).message.replace(/^CronPattern: /, "")}`;
  }
  if (cron.nextRun(new Date()) === null) return "never fires";
  return undefined;
}

/** The first run strictly after `after`, or undefined when the schedule never fires again. */
export function nextRunAfter(schedule: BlobSourceSchedule, after: Date): Date | undefined {
  if (typeof schedule === "string") {
    const next = new Cron(schedule.trim().split(/\s+/).join(" "), { timezone: "UTC", paused: true }).nextRun(after);
    return next ?? undefined;
  }
  const interval = everyMinutes[schedule.every] * 60_000;
  const [hh, mm] = (schedule.at ?? "00:00").split(":").map(Number);
  const offset = (((hh ?? 0) * 60 + (mm ?? 0)) * 60_000) % interval;
  const day = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate());
  const k = Math.floor((after.getTime() - day - offset) / interval) + 1;
  return new Date(day + offset + k * interval);
}
