import { AppError, notFound } from "../../domain/errors";
import {
  patchedDefinition,
  type Feed,
  type FeedDefinition,
  type FeedPatch,
  type StoredFeed,
} from "../../domain/feed";
import { issuesToDetails } from "../../domain/validation";
import type { Logger } from "../../logging";
import type { FileListing } from "../../ports/file-store";
import type { StoredSftpLogin } from "../../ports/sftp-logins";
import { INBOUND } from "./ingest-file-parts";
import { feedAsAnswered, requireRecordPath, storedFeed, type FeedsDeps } from "./stored-feeds";

export interface UpdateFeedDeps extends FeedsDeps {
  /** The inbound files (`inbound/<feedId>/<fileName>`), listed and announced again when a paused feed resumes. */
  inbound: FileListing;
  log: Logger;
}

/**
 * Changes a feed. A paused feed's files wait in its inbox; when the feed leaves `paused` they are
 * announced again, so ingestion takes them without a new upload.
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
    return feedAsAnswered(this.deps, next);
  }

  /**
   * Announces the files waiting in the feed's inbox again (a new metadata stamp gives each a new
   * ETag, which the blob trigger takes as a new version), so ingestion reads them as the feed now says.
   */
  private async resume(feed: StoredFeed): Promise<void> {
    const stamp = this.deps.clock.now().toISOString();
    let resumed = 0;
    try {
      for await (const name of this.deps.inbound.list(INBOUND, `${feed.id}/`)) {
        if (await this.deps.inbound.touch(INBOUND, name, "resumedAt", stamp)) resumed++;
      }
    } catch (error) {
      this.deps.log.error("resuming a feed: its waiting files could not all be announced again", {
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
      this.deps.log.info("feed resumed: waiting files announced again", {
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
