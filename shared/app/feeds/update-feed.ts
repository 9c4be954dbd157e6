import { AppError, notFound } from "../../domain/errors";
import {
  patchedDefinition,
  toPublicFeed,
  type Feed,
  type FeedDefinition,
  type FeedPatch,
  type StoredFeed,
} from "../../domain/feed";
import { issuesToDetails } from "../../domain/validation";
import type { Logger } from "../../logging";
import type { FileListing } from "../../ports/file-store";
import type { MessageBus } from "../../ports/message-bus";
import type { StoredSftpLogin } from "../../ports/sftp-logins";
import { INBOUND } from "./ingest-file-parts";
import type { QueuedFile } from "./queued-file";
import { requireRecordPath, storedFeed, type FeedsDeps } from "./stored-feeds";

export interface UpdateFeedDeps extends FeedsDeps {
  /** The inbound files (`inbound/<feedId>/<fileName>`), listed when a paused feed resumes. */
  inbound: FileListing;
  /** Where a resumed feed's waiting files are handed to ingestion (the `feed-files` queue). */
  bus: MessageBus;
  log: Logger;
}

/** Files handed over per send (one queue message each). */
const SEND_BATCH = 100;

/**
 * Changes a feed. A paused feed's files wait in its inbox; when the feed leaves `paused` each is
 * handed to ingestion (a `feed-files` message per file), so it is ingested without a new upload.
 */
export class UpdateFeed {
  constructor(private readonly deps: UpdateFeedDeps) {}

  /**
   * The definition that results is validated whole (a new format against the stored options, a new
   * data type against the mapping). New public keys are checked with the rest first, then set on the
   * login, then stored. A feed that leaves `paused` has its waiting files ingested.
   */
  async execute({ id, patch }: { id: string; patch: FeedPatch }): Promise<Feed> {
    let login: StoredSftpLogin | undefined;
    if (patch.sftp !== undefined) {
      const current = await storedFeed(this.deps.repository, id);
      checked(current, patch);
      login = await this.deps.logins.setPublicKeys(
        id,
        current.sftp,
        patch.sftp.publicKeys.map((k) => k.trim()),
      );
    }
    let previous: StoredFeed | undefined;
    const next = await this.deps.repository.update(id, (current) => {
      previous = current;
      return {
        ...current,
        ...checked(current, patch),
        sftp: login ?? current.sftp,
        updatedAt: this.deps.clock.now().toISOString(),
      };
    });
    if (next === undefined || previous === undefined) throw notFound(`Feed '${id}'`);
    if (previous.status === "paused" && next.status !== "paused") await this.resume(next);
    return toPublicFeed(next, this.deps.logins.endpoint);
  }

  /**
   * Hands the files waiting in the feed's inbox to ingestion, which reads them as the feed now says:
   * a queue message per file, consumed by the same ingestion as the blob trigger's. Not a storage
   * event: touching a file's metadata raises none in Azure (Event Grid reports whole files written,
   * not stamps), so it would wait for ever. A name ingestion cannot take is handed over like any
   * other: ingestion refuses it with a failed job a person sees, instead of this listing stopping.
   */
  private async resume(feed: StoredFeed): Promise<void> {
    let resumed = 0;
    let batch: string[] = [];
    const send = async (): Promise<void> => {
      await this.deps.bus.send(
        "feed-files",
        batch.map((name) => ({ body: { name } satisfies QueuedFile })),
      );
      resumed += batch.length;
      batch = [];
    };
    try {
      for await (const name of this.deps.inbound.list(INBOUND, `${feed.id}/`)) {
        batch.push(name);
        if (batch.length >= SEND_BATCH) await send();
      }
      if (batch.length > 0) await send();
    } catch (error) {
      this.deps.log.error("resuming a feed: its waiting files could not all be handed to ingestion", {
        feedId: feed.id,
        resumed,
        error: error instanceof Error ? error.message : String(error),
      });
      throw new AppError(
        "SERVICE_UNAVAILABLE",
        `The feed is now ${feed.status}, but its waiting files could not all be picked up; set it to paused and back to try again`,
        { cause: error },
      );
    }
    if (resumed > 0)
      this.deps.log.info("feed resumed: waiting files handed to ingestion", {
        feedId: feed.id,
        status: feed.status,
        files: resumed,
      });
  }
}

/** The patched definition, or a 422 naming every problem. */
function checked(current: StoredFeed, patch: FeedPatch): FeedDefinition {
  const result = patchedDefinition(definitionOf(current), patch);
  if (!result.success)
    throw new AppError("VALIDATION_ERROR", "The request body failed validation", {
      details: issuesToDetails(result.error.issues),
    });
  requireRecordPath(result.data);
  return result.data;
}

/** The definition part of a stored feed (without id, login and timestamps), as stored. */
function definitionOf(f: StoredFeed): FeedDefinition {
  const { name, provider, dataType, format, filePattern, options, mapping, validation, status } = f;
  return { name, provider, dataType, format, filePattern, options, mapping, validation, status };
}
