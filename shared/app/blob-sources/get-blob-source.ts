import type { BlobSource } from "../../domain/blob-source";
import { requireBlobSource, type BlobSourcesDeps } from "./blob-source-rules";

/** One blob source; 404 when there is none. */
export class GetBlobSource {
  constructor(private readonly deps: BlobSourcesDeps) {}

  execute(id: string): Promise<BlobSource> {
    return requireBlobSource(this.deps.repository, id);
  }
}
