import type { ExportPreview, ExportPreviewRequest } from "../../domain/export-preview";
import { renderFileName } from "../../domain/export-file-name";
import { nextRunAt } from "../../domain/export-schedule";
import type { Clock } from "../../ports/clock";

/**
 * The next scheduled times of an export not saved yet (or being edited) and the file each would
 * write: the rules the scheduler and the runs use, so that the console's preview cannot disagree.
 */
export interface PreviewExportRunsDeps {
  clock: Clock;
}

export class PreviewExportRuns {
  constructor(private readonly deps: PreviewExportRunsDeps) {}

  async execute(input: ExportPreviewRequest): Promise<ExportPreview> {
    const nextRuns: ExportPreview["nextRuns"] = [];
    let after = this.deps.clock.now();
    for (let i = 0; i < input.count; i++) {
      const at = nextRunAt(input.schedule, after);
      const context = {
        exportId: input.exportId ?? "{exportId}",
        dataType: input.dataType,
        format: input.format,
        scheduledFor: at,
        timezone: input.schedule.timezone,
      };
      nextRuns.push({ at: at.toISOString(), fileName: renderFileName(input.fileName, context) });
      after = at;
    }
    return { timezone: input.schedule.timezone, nextRuns };
  }
}
