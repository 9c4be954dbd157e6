import type { BlobSource } from "../../domain/blob-source";
import { requireBlobSource } from "./blob-source-rules";
import { withLastRun, type BlobSourceReadDeps } from "./list-blob-sources";

/** One blob source with its last run; 404 when there is none. */
export class GetBlobSource {
  constructor(private readonly deps: BlobSourceReadDeps) {}

  async execute(id: string): Promise<BlobSource> {
    return withLastRun(this.deps.runs, await requireBlobSource(this.deps.repository, id));
  }
}
