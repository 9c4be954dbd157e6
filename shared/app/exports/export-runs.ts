import type { StoredExport } from "../../domain/export";
import { renderFileName } from "../../domain/export-file-name";
import { exportRunId, type ExportRun, type StoredExportRun } from "../../domain/export-run";
import { nextRunAt } from "../../domain/export-schedule";
import { MAX_RUN_ATTEMPTS, type RunClaim, type RunKind } from "../scheduled-runs/run-kind";
import type { RunSchedule } from "../scheduled-runs/scheduled-runs";

/** The body of an `exports` queue message: the run to perform. */
export interface ExportRunMessage {
  exportId: string;
  runId: string;
}

/** Export runs as the scheduled-runs component sees them: performed from the `exports` queue, held for `leaseSeconds` per attempt. */
export function exportRunKind(leaseSeconds: number): RunKind<StoredExportRun> {
  return {
    queue: "exports",
    ownerField: "exportId",
    ownerOf: (run) => run.exportId,
    label: "an export",
    leaseSeconds,
    // A claim waits as long as an attempt holds a run before it is sent again.
    unsentAfterSeconds: leaseSeconds,
    abandonedError: `the attempt did not finish; stopped after ${MAX_RUN_ATTEMPTS} attempts`,
  };
}

/** An export's due time becomes its scheduled run; `nextRunAt` moves to the schedule's next time after now, in the export's time zone. */
export const exportRunSchedule: RunSchedule<StoredExport, StoredExportRun> = {
  runFor: (exp, dueAt, claim) => newExportRun(exp, dueAt, "schedule", claim),
  nextRunAt: (exp, now) => nextRunAt(exp.schedule, now).toISOString(),
};

/**
 * A run of (export, scheduled time, trigger), whose id derives from the three. The file name is the one
 * the definition gives now; each attempt renders it again from the definition it works from (see RunExport).
 */
export function newExportRun(
  exp: StoredExport,
  scheduledFor: string,
  trigger: ExportRun["trigger"],
  claim: RunClaim,
): StoredExportRun {
  return {
    id: exportRunId(exp.id, scheduledFor, trigger),
    exportId: exp.id,
    trigger,
    scheduledFor,
    status: "running",
    fileName: renderFileName(exp.fileName, {
      exportId: exp.id,
      dataType: exp.dataType,
      format: exp.format,
      scheduledFor: new Date(scheduledFor),
      timezone: exp.schedule.timezone,
    }),
    rows: 0,
    bytes: 0,
    ...claim,
  };
}
