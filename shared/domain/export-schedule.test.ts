import { describe, expect, it } from "vitest";
import { exportScheduleSchema, isTimeZone, nextRunAt, periodWindow, type ExportSchedule } from "./export-schedule";

const at = (iso: string): Date => new Date(iso);
const next = (schedule: Partial<ExportSchedule> & Pick<ExportSchedule, "frequency" | "time">, after: string): string =>
  nextRunAt(exportScheduleSchema.parse(schedule), at(after)).toISOString();

describe("nextRunAt in the export's time zone across daylight-saving changes", () => {
  it("Europe/London (BST starts 29 March, ends 25 October 2026): 07:30 local stays 07:30 local", () => {
    const s = { frequency: "daily", time: "07:30", timezone: "Europe/London" } as const;
    expect(next(s, "2026-03-28T12:00:00Z")).toBe("2026-03-29T06:30:00.000Z"); // first day of BST
    expect(next(s, "2026-03-27T12:00:00Z")).toBe("2026-03-28T07:30:00.000Z"); // last day of GMT
    expect(next(s, "2026-10-24T12:00:00Z")).toBe("2026-10-25T07:30:00.000Z"); // back on GMT
  });

  it("Europe/London: a time inside the skipped hour runs just after the gap; a repeated hour runs once", () => {
    expect(next({ frequency: "daily", time: "01:30", timezone: "Europe/London" }, "2026-03-29T00:00:00Z")).toBe(
      "2026-03-29T01:00:00.000Z",
    );
    const s = { frequency: "daily", time: "01:30", timezone: "Europe/London" } as const;
    expect(next(s, "2026-10-24T12:00:00Z")).toBe("2026-10-25T00:30:00.000Z");
    expect(next(s, "2026-10-25T00:30:00Z")).toBe("2026-10-26T01:30:00.000Z");
  });

  it("America/New_York (EDT from 8 March 2026): weekly on Monday 09:00 local", () => {
    const s = { frequency: "weekly", time: "09:00", timezone: "America/New_York", dayOfWeek: 1 } as const;
    expect(next(s, "2026-03-01T00:00:00Z")).toBe("2026-03-02T14:00:00.000Z"); // EST, UTC-5
    expect(next(s, "2026-03-03T00:00:00Z")).toBe("2026-03-09T13:00:00.000Z"); // EDT, UTC-4
  });

  it("Australia/Sydney (AEDT ends 5 April 2026): weekly on Sunday (7) 09:00 and monthly on the last day", () => {
    const sunday = { frequency: "weekly", time: "09:00", timezone: "Australia/Sydney", dayOfWeek: 7 } as const;
    expect(next(sunday, "2026-03-27T00:00:00Z")).toBe("2026-03-28T22:00:00.000Z"); // AEDT, UTC+11
    expect(next(sunday, "2026-04-01T00:00:00Z")).toBe("2026-04-04T23:00:00.000Z"); // AEST, UTC+10
    const last = { frequency: "monthly", time: "09:00", timezone: "Australia/Sydney", dayOfMonth: "last" } as const;
    expect(next(last, "2026-03-15T00:00:00Z")).toBe("2026-03-30T22:00:00.000Z"); // 31 March 09:00 AEDT
    expect(next(last, "2026-04-01T00:00:00Z")).toBe("2026-04-29T23:00:00.000Z"); // 30 April 09:00 AEST
    expect(next(last, "2028-02-01T00:00:00Z")).toBe("2028-02-28T22:00:00.000Z"); // 29 February 2028 09:00 AEDT
  });

  it("monthly on a day 1 to 28; UTC by default", () => {
    expect(next({ frequency: "monthly", time: "06:00", dayOfMonth: 28 }, "2026-02-28T06:00:00Z")).toBe(
      "2026-03-28T06:00:00.000Z",
    );
  });
});

describe("schedule validation", () => {
  const problems = (input: unknown): string[] => {
    const r = exportScheduleSchema.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("names each impossible combination", () => {
    expect(problems({ frequency: "daily", time: "07:00", dayOfWeek: 2 })).toEqual([
      "dayOfWeek: applies to weekly schedules only, not daily",
    ]);
    expect(problems({ frequency: "weekly", time: "07:00" })).toEqual(["dayOfWeek: is required for a weekly schedule"]);
    expect(problems({ frequency: "monthly", time: "07:00", dayOfMonth: 29 })[0]).toMatch(/^dayOfMonth:/);
    expect(problems({ frequency: "monthly", time: "07:00" })).toEqual([
      "dayOfMonth: is required for a monthly schedule",
    ]);
    expect(problems({ frequency: "weekly", time: "07:00", dayOfWeek: 0 })[0]).toMatch(/^dayOfWeek:/);
    expect(problems({ frequency: "daily", time: "24:00" })[0]).toMatch(/^time:/);
    expect(problems({ frequency: "daily", time: "7:00" })[0]).toMatch(/^time:/);
    expect(problems({ frequency: "daily", time: "07:00", timezone: "Mars/Olympus" })).toEqual([
      "timezone: is not an IANA time zone (e.g. Europe/London, America/New_York, UTC)",
    ]);
    expect(problems({ frequency: "hourly", time: "07:00" })[0]).toMatch(/^frequency:/);
  });

  it("knows time zones through Intl", () => {
    expect(isTimeZone("Europe/London")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Europe/Londn")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});

describe("period windows, relative to the scheduled time's local date", () => {
  it("previous day, ISO week and calendar month", () => {
    // 00:30 on 2 March in Sydney is still 1 March in UTC: the local date decides.
    expect(periodWindow("previous-day", at("2026-03-01T13:30:00Z"), "Australia/Sydney")).toEqual({
      from: "2026-03-01",
      to: "2026-03-01",
    });
    expect(periodWindow("previous-day", at("2026-03-01T13:30:00Z"), "UTC")).toEqual({
      from: "2026-02-28",
      to: "2026-02-28",
    });
    expect(periodWindow("previous-week", at("2026-03-04T08:00:00Z"), "UTC")).toEqual({
      from: "2026-02-23",
      to: "2026-03-01",
    });
    expect(periodWindow("previous-month", at("2026-03-01T08:00:00Z"), "UTC")).toEqual({
      from: "2026-02-01",
      to: "2026-02-28",
    });
    expect(periodWindow("previous-month", at("2026-01-15T08:00:00Z"), "UTC")).toEqual({
      from: "2025-12-01",
      to: "2025-12-31",
    });
    expect(periodWindow("all", at("2026-01-15T08:00:00Z"), "UTC")).toBeUndefined();
  });
});
