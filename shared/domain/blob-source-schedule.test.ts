import { describe, expect, it } from "vitest";
import { blobSourceScheduleSchema, ncrontabProblem, nextRunAfter } from "./blob-source-schedule";

const next = (schedule: Parameters<typeof nextRunAfter>[0], after: string): string | undefined =>
  nextRunAfter(schedule, new Date(after))?.toISOString();

describe("blob source schedules", () => {
  it("NCRONTAB: six fields, UTC, the next time strictly after", () => {
    expect(next("0 */15 * * * *", "2026-03-01T10:07:12Z")).toBe("2026-03-01T10:15:00.000Z");
    expect(next("0 */15 * * * *", "2026-03-01T10:15:00Z")).toBe("2026-03-01T10:30:00.000Z");
    expect(next("0 30 6 * * 1-5", "2026-03-06T07:00:00Z")).toBe("2026-03-09T06:30:00.000Z"); // Friday after 06:30 → Monday
    expect(next("30 0 0 1 * *", "2026-12-31T23:59:59Z")).toBe("2027-01-01T00:00:30.000Z");
    // UTC whatever the season: no shift at a European or American DST change.
    expect(next("0 0 2 * * *", "2026-03-29T00:00:00Z")).toBe("2026-03-29T02:00:00.000Z");
  });

  it("every/at: slots anchored on `at` (default midnight UTC), across days", () => {
    expect(next({ every: "15m" }, "2026-03-01T10:07:12Z")).toBe("2026-03-01T10:15:00.000Z");
    expect(next({ every: "15m" }, "2026-03-01T23:50:00Z")).toBe("2026-03-02T00:00:00.000Z");
    expect(next({ every: "15m", at: "00:05" }, "2026-03-01T10:07:12Z")).toBe("2026-03-01T10:20:00.000Z");
    expect(next({ every: "1h" }, "2026-03-01T10:00:00Z")).toBe("2026-03-01T11:00:00.000Z");
    expect(next({ every: "1h", at: "06:45" }, "2026-03-01T10:50:00Z")).toBe("2026-03-01T11:45:00.000Z");
    expect(next({ every: "1d", at: "06:30" }, "2026-03-01T06:29:59Z")).toBe("2026-03-01T06:30:00.000Z");
    expect(next({ every: "1d", at: "06:30" }, "2026-03-01T06:30:00Z")).toBe("2026-03-02T06:30:00.000Z");
    expect(next({ every: "1d" }, "2026-02-28T12:00:00Z")).toBe("2026-03-01T00:00:00.000Z");
  });

  it("refuses what is not a six-field NCRONTAB or an every/at it knows", () => {
    expect(ncrontabProblem("0 0 * * *")).toMatch(/six fields/);
    expect(ncrontabProblem("*/10 * * * * *")).toMatch(/seconds field/);
    expect(ncrontabProblem("0 61 * * * *")).toMatch(/not a valid NCRONTAB expression: .*minute/);
    expect(ncrontabProblem("0 0 0 31 2 *")).toBeDefined();
    expect(ncrontabProblem("0 0 */2 * * *")).toBeUndefined();
    expect(blobSourceScheduleSchema.safeParse({ every: "5m" }).success).toBe(false);
    expect(blobSourceScheduleSchema.safeParse({ every: "1d", at: "24:00" }).success).toBe(false);
    expect(blobSourceScheduleSchema.safeParse({ every: "1d", at: "7:00" }).success).toBe(false);
    expect(blobSourceScheduleSchema.safeParse({ every: "1d", extra: 1 }).success).toBe(false);
    expect(blobSourceScheduleSchema.safeParse({ every: "1h", at: "23:59" }).success).toBe(true);
  });
});
