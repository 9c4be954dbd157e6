import { AppError } from "../../domain/errors";
import type { StoredExport } from "../../domain/export";
import { toPublicRun, type ExportRun, type StoredExportRun } from "../../domain/export-run";
import type { ScheduledRuns } from "../scheduled-runs/scheduled-runs";
import { requireExport, type ExportsDeps } from "./export-definition";
import { newExportRun } from "./export-runs";

export interface RunExportNowDeps extends ExportsDeps {
  scheduledRuns: ScheduledRuns<StoredExport, StoredExportRun>;
}

/** A manual run: scheduled for now (the naming tokens use it), performed by the `exports` queue. */
export class RunExportNow {
  constructor(private readonly deps: RunExportNowDeps) {}

  async execute(id: string): Promise<ExportRun> {
    const exp = await requireExport(this.deps.repository, id);
    const run = await this.deps.scheduledRuns.start((claim) => newExportRun(exp, claim.startedAt, "manual", claim));
    if (run === undefined)
      throw new AppError("CONFLICT", `A run of export '${id}' was asked for at this very moment; retry`, {
        retryable: true,
      });
    // A run changes no field of the export: the audit trail learns of it from here, as a write of the
    // export unchanged with the note (the entry travels in that write's batch, as every audited change's).
    // The run is started first, so an entry never names a run that was refused.
    await this.deps.repository.update(id, (current) => current, {
      action: "run",
      changes: [{ field: "run", from: null, to: run.id }],
    });
    return toPublicRun(run);
  }
}
