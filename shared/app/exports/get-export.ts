import type { Export } from "../../domain/export";
import { requireExport } from "./export-definition";
import { exportWithLastRun, type ExportReadDeps } from "./list-exports";

/** One export definition (destination secrets never answered) with its last run; 404 when there is none. */
export class GetExport {
  constructor(private readonly deps: ExportReadDeps) {}

  async execute(id: string): Promise<Export> {
    return exportWithLastRun(this.deps.runs, await requireExport(this.deps.repository, id));
  }
}
