import { parseContainerUrl, type ServiceStorage } from "../../domain/blob-source-container-url";
import { nextRunAfter, type BlobSource } from "../../domain/blob-source";
import { AppError, notFound, type ErrorDetail } from "../../domain/errors";
import type { BlobSourceRepository } from "../../ports/blob-sources";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";

// What the blob source use cases share: the stored source or a 404, the checks of a definition, its next run.

/** The use cases that need the stored sources alone (get, list, delete). */
export interface BlobSourcesDeps {
  repository: BlobSourceRepository;
}

/** Creating or changing a source: its feed and container URL are checked, its next run computed. */
export interface BlobSourceDefinitionDeps extends BlobSourcesDeps {
  feeds: Pick<FeedRepository, "get">;
  clock: Clock;
  /** The service's own storage (never a source) and the emulator it runs on, if it does (its other containers may then be sources). */
  storage: ServiceStorage;
}

/** The stored source; 404 when there is none. */
export async function requireBlobSource(repository: BlobSourceRepository, id: string): Promise<BlobSource> {
  const source = await repository.get(id);
  if (source === undefined) throw notFound(`Blob source '${id}'`);
  return source;
}

/** The URL the source will use (normalised), after checking the URL and the feed; one 422 names every problem. */
export async function checkedContainerUrl(
  deps: BlobSourceDefinitionDeps,
  fields: { containerUrl?: string; feedId?: string },
): Promise<string | undefined> {
  const details: ErrorDetail[] = [];
  let url: string | undefined;
  if (fields.containerUrl !== undefined) {
    const location = parseContainerUrl(fields.containerUrl, deps.storage);
    if ("problem" in location) details.push({ field: "containerUrl", message: location.problem });
    else url = location.url;
  }
  if (fields.feedId !== undefined && (await deps.feeds.get(fields.feedId)) === undefined) {
    details.push({ field: "feedId", message: `no feed '${fields.feedId}'` });
  }
  if (details.length > 0) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details });
  return url;
}

/** The next scheduled run of an enabled source after `now`; null while disabled. */
export function nextRunOf(source: Pick<BlobSource, "status" | "schedule">, now: Date): string | null {
  if (source.status !== "enabled") return null;
  return nextRunAfter(source.schedule, now)?.toISOString() ?? null;
}
