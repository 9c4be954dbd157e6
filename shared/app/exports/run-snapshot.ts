import type { StoredExport } from "../../domain/export";
import { renderFileName } from "../../domain/export-file-name";
import type { StoredExportRun } from "../../domain/export-run";
import { defaultPeriod, periodWindow } from "../../domain/export-schedule";
import type { DateWindow } from "../../domain/export-data";

// What an attempt derives from the one snapshot of the definition it works from (besides its format and destination).

const PERIOD_TYPES = new Set(["transactions", "prices"]);

/** The dates a run selects: transactions and prices only, by the export's `period` (default by frequency). */
export function runWindow(
  exp: Pick<StoredExport, "dataType" | "filters" | "schedule">,
  scheduledFor: Date,
): DateWindow | undefined {
  if (!PERIOD_TYPES.has(exp.dataType)) return undefined;
  return periodWindow(exp.filters.period ?? defaultPeriod(exp.schedule.frequency), scheduledFor, exp.schedule.timezone);
}

/** The run's file name from this snapshot of the definition; a template no run can render (saved before a rule) renders as "". */
export function fileNameOf(exp: StoredExport, run: StoredExportRun): string {
  try {
    return renderFileName(exp.fileName, {
      exportId: exp.id,
      dataType: exp.dataType,
      format: exp.format,
      scheduledFor: new Date(run.scheduledFor),
      timezone: exp.schedule.timezone,
    });
  } catch {
    return "";
  }
}

/** The `window` of the data set request, when the data type has one. */
export function windowOf(exp: StoredExport, run: StoredExportRun): { window?: DateWindow } {
  const window = runWindow(exp, new Date(run.scheduledFor));
  return window === undefined ? {} : { window };
}
