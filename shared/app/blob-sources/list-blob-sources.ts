import type { BlobSource } from "../../domain/blob-source";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { BlobSourcesDeps } from "./blob-source-rules";

/** The blob sources, a page at a time. */
export class ListBlobSources {
  constructor(private readonly deps: BlobSourcesDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<BlobSource>> {
    // Settings are listed by page number (their list has no cursor in the contract).
    const { items, totalItems } = await this.deps.repository.list(request.page ?? 1, request.pageSize);
    return { items, totalItems, nextCursor: null };
  }
}
