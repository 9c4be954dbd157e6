import type { BlobSource } from "../../domain/blob-source";
import { lastRunOf } from "../../domain/last-run";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import type { ScheduledRunStore } from "../../ports/scheduled-runs";
import type { BlobSourcesDeps } from "./blob-source-rules";

/** Reading sources as answered: with each one's last run. */
export interface BlobSourceReadDeps extends BlobSourcesDeps {
  runs: Pick<ScheduledRunStore<StoredBlobSourceRun>, "latest">;
}

/** The sources as answered, each with its newest run: two store reads for the whole page, never one per source. */
export async function withLastRuns(
  runs: BlobSourceReadDeps["runs"],
  sources: readonly BlobSource[],
): Promise<BlobSource[]> {
  const latest =
    sources.length === 0 ? new Map<string, StoredBlobSourceRun>() : await runs.latest(sources.map((s) => s.id));
  return sources.map((s) => {
    const run = latest.get(s.id);
    return { ...s, lastRun: run === undefined ? null : lastRunOf(run) };
  });
}

/** One source as answered, with its newest run. */
export async function withLastRun(runs: BlobSourceReadDeps["runs"], source: BlobSource): Promise<BlobSource> {
  const run = (await runs.latest([source.id])).get(source.id);
  return { ...source, lastRun: run === undefined ? null : lastRunOf(run) };
}

/** The blob sources, a page at a time, each with its last run. */
export class ListBlobSources {
  constructor(private readonly deps: BlobSourceReadDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<BlobSource>> {
    const result = await this.deps.repository.list(request);
    return { ...result, items: await withLastRuns(this.deps.runs, result.items) };
  }
}
