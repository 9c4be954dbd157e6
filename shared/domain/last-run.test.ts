import { describe, expect, it } from "vitest";
import { toPublicRun, type StoredExportRun } from "./export-run";
import { lastJobOf, lastRunOf } from "./last-run";

const run = (fields: Partial<StoredExportRun>): StoredExportRun => ({
  id: "er_1",
  exportId: "ex_1",
  trigger: "schedule",
  scheduledFor: "2026-03-01T06:00:00.000Z",
  status: "running",
  fileName: "f.csv",
  rows: 0,
  bytes: 0,
  startedAt: "2026-03-01T06:00:01.000Z",
  attempts: 1,
  leaseUntil: "2026-03-01T06:10:00.000Z",
  ...fields,
});

describe("a run's status as answered", () => {
  it("a running run whose attempt failed and whose next attempt waits is retrying, with when and why", () => {
    const waiting = run({ error: "refused", nextAttemptAt: "2026-03-01T06:05:00.000Z" });
    expect(toPublicRun(waiting)).toMatchObject({ status: "retrying", nextAttemptAt: "2026-03-01T06:05:00.000Z" });
    expect(lastRunOf(waiting)).toEqual({
      id: "er_1",
      status: "retrying",
      scheduledFor: "2026-03-01T06:00:00.000Z",
      startedAt: "2026-03-01T06:00:01.000Z",
      error: "refused",
      nextAttemptAt: "2026-03-01T06:05:00.000Z",
    });
    // The next attempt took it (nextAttemptAt cleared): running again, the last error kept.
    expect(lastRunOf(run({ error: "refused", attempts: 2 }))).toMatchObject({ status: "running", error: "refused" });
    expect(lastRunOf(run({ status: "succeeded", completedAt: "2026-03-01T06:01:00.000Z" }))).toEqual({
      id: "er_1",
      status: "succeeded",
      scheduledFor: "2026-03-01T06:00:00.000Z",
      startedAt: "2026-03-01T06:00:01.000Z",
      completedAt: "2026-03-01T06:01:00.000Z",
    });
    expect(
      toPublicRun(run({ status: "failed", error: "x", nextAttemptAt: "2026-03-01T06:05:00.000Z" })),
    ).not.toHaveProperty("nextAttemptAt");
  });

  it("a feed's last job: its status, file and, when it failed, its first error", () => {
    expect(
      lastJobOf({
        id: "job_1",
        source: "sftp",
        dataType: "prices",
        feedId: "fd_1",
        fileName: "prices.csv",
        status: "failed",
        counts: { received: 2, accepted: 0, rejected: 1, removed: 0 },
        errors: [
          { field: "file", message: "1 row rejected" },
          { field: "price", message: "row 2: must be a number" },
        ],
        startedAt: "2026-03-01T06:00:00.000Z",
        completedAt: "2026-03-01T06:00:02.000Z",
        leaseUntil: null,
      }),
    ).toEqual({
      id: "job_1",
      status: "failed",
      fileName: "prices.csv",
      startedAt: "2026-03-01T06:00:00.000Z",
      completedAt: "2026-03-01T06:00:02.000Z",
      error: "1 row rejected",
    });
  });
});
