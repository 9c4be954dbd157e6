import { toPublicExport, type Export, type StoredExport } from "../../domain/export";
import type { StoredExportRun } from "../../domain/export-run";
import { lastRunOf } from "../../domain/last-run";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { ScheduledRunStore } from "../../ports/scheduled-runs";
import type { ExportsDeps } from "./export-definition";

/** Reading definitions as answered: with each one's last run. */
export interface ExportReadDeps extends ExportsDeps {
  runs: Pick<ScheduledRunStore<StoredExportRun>, "latest">;
}

/** The definitions as answered, each with its newest run: two store reads for the whole page, never one per export. */
export async function withLastRuns(runs: ExportReadDeps["runs"], stored: readonly StoredExport[]): Promise<Export[]> {
  const latest = stored.length === 0 ? new Map<string, StoredExportRun>() : await runs.latest(stored.map((e) => e.id));
  return stored.map((e) => {
    const run = latest.get(e.id);
    return toPublicExport(e, run === undefined ? null : lastRunOf(run));
  });
}

/** One definition as answered, with its newest run. */
export async function exportWithLastRun(runs: ExportReadDeps["runs"], stored: StoredExport): Promise<Export> {
  const run = (await runs.latest([stored.id])).get(stored.id);
  return toPublicExport(stored, run === undefined ? null : lastRunOf(run));
}

/** The export definitions, a page at a time (destination secrets never answered), each with its last run. */
export class ListExports {
  constructor(private readonly deps: ExportReadDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Export>> {
    const result = await this.deps.repository.list(request);
    return { ...result, items: await withLastRuns(this.deps.runs, result.items) };
  }
}
