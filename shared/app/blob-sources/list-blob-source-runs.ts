import type { BlobSourceRun } from "../../domain/blob-source-run";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import type { ScheduledRunStore } from "../../ports/scheduled-runs";
import { publicRun } from "./blob-source-runs";
import { requireBlobSource, type BlobSourcesDeps } from "./blob-source-rules";

export interface ListBlobSourceRunsDeps extends BlobSourcesDeps {
  runs: ScheduledRunStore<StoredBlobSourceRun>;
}

/** A source's runs, newest first (404 for an unknown source). */
export class ListBlobSourceRuns {
  constructor(private readonly deps: ListBlobSourceRunsDeps) {}

  async execute({ id, request }: { id: string; request: PageRequest }): Promise<CursorPage<BlobSourceRun>> {
    await requireBlobSource(this.deps.repository, id);
    const page = await this.deps.runs.list(id, request);
    return { ...page, items: page.items.map(publicRun) };
  }
}
