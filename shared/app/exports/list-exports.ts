import { toPublicExport, type Export } from "../../domain/export";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { ExportsDeps } from "./export-definition";

/** The export definitions, a page at a time (destination secrets never answered). */
export class ListExports {
  constructor(private readonly deps: ExportsDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Export>> {
    const result = await this.deps.repository.list(request);
    return { ...result, items: result.items.map(toPublicExport) };
  }
}
