import { toPublicExport, type Export } from "../../domain/export";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { ExportsDeps } from "./export-definition";

/** The export definitions, a page at a time (destination secrets never answered). */
export class ListExports {
  constructor(private readonly deps: ExportsDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Export>> {
    // Settings are listed by page number (their list has no cursor in the contract).
    const { items, totalItems } = await this.deps.repository.list(request.page ?? 1, request.pageSize);
    return { items: items.map(toPublicExport), totalItems, nextCursor: null };
  }
}
