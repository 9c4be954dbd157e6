import { notFound } from "../../domain/errors";
import type { ExportsDeps } from "./export-definition";

/**
 * The export goes; its runs stay in `runs` (no longer listed: the export is 404). A run in progress
 * is cancelled: its attempt checks the export is still there before its file becomes visible, and
 * otherwise records the run failed ("cancelled: the export was deleted") and delivers nothing.
 */
export class DeleteExport {
  constructor(private readonly deps: ExportsDeps) {}

  async execute(id: string): Promise<void> {
    if (!(await this.deps.repository.delete(id))) throw notFound(`Export '${id}'`);
  }
}
