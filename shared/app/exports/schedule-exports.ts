import type { StoredExport } from "../../domain/export";
import type { StoredExportRun } from "../../domain/export-run";
import type { ScheduledRuns } from "../scheduled-runs/scheduled-runs";

export interface ScheduleExportsResult {
  /** Runs this tick claimed and sent. */
  claimed: number;
  /** Runs whose message or attempt was lost sent again. */
  resent: number;
  /** Runs failed because their last attempt died. */
  abandoned: number;
}

export interface ScheduleExportsDeps {
  scheduledRuns: ScheduledRuns<StoredExport, StoredExportRun>;
}

/**
 * The exports timer. Each enabled export whose `nextRunAt` has come is claimed for that scheduled
 * time (of two timers firing at once, one wins), its run sent to the `exports` queue, and `nextRunAt`
 * moved on (scheduled times missed while the service was down collapse into that one run); one export
 * that cannot be scheduled does not hold up the others. Then runs still `running` that no attempt
 * performs (a lost message, a dead instance) are sent again, or failed after the third attempt. See
 * ScheduledRuns.
 */
export class ScheduleExports {
  constructor(private readonly deps: ScheduleExportsDeps) {}

  async execute(): Promise<ScheduleExportsResult> {
    const { claimed, resent, abandoned } = await this.deps.scheduledRuns.tick();
    return { claimed: claimed.length, resent, abandoned };
  }
}
