import type { BlobSource } from "../../domain/blob-source";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { BlobSourcesDeps } from "./blob-source-rules";

/** The blob sources, a page at a time. */
export class ListBlobSources {
  constructor(private readonly deps: BlobSourcesDeps) {}

  execute(request: PageRequest): Promise<CursorPage<BlobSource>> {
    return this.deps.repository.list(request);
  }
}
