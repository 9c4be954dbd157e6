import { toPublicRun, type ExportRun, type StoredExportRun } from "../../domain/export-run";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { ScheduledRunStore } from "../../ports/scheduled-runs";
import { requireExport, type ExportsDeps } from "./export-definition";

export interface ListExportRunsDeps extends ExportsDeps {
  runs: ScheduledRunStore<StoredExportRun>;
}

/** An export's runs, newest first (404 for an unknown export). */
export class ListExportRuns {
  constructor(private readonly deps: ListExportRunsDeps) {}

  async execute({ id, request }: { id: string; request: PageRequest }): Promise<CursorPage<ExportRun>> {
    await requireExport(this.deps.repository, id);
    const page = await this.deps.runs.list(id, request);
    return { ...page, items: page.items.map(toPublicRun) };
  }
}
