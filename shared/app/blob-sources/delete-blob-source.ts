import { notFound } from "../../domain/errors";
import type { BlobSourcesDeps } from "./blob-source-rules";

/** The source goes; its run history stays in `runs` (nothing else refers to it). */
export class DeleteBlobSource {
  constructor(private readonly deps: BlobSourcesDeps) {}

  async execute(id: string): Promise<void> {
    if (!(await this.deps.repository.delete(id))) throw notFound(`Blob source '${id}'`);
  }
}
