import { AppError, notFound } from "../../domain/errors";
import {
  toPublicFeed,
  type Feed,
  type FeedDefinition,
  type FeedWithPassword,
  type StoredFeed,
} from "../../domain/feed";
import type { Job } from "../../domain/job";
import { lastJobOf } from "../../domain/last-run";
import type { JobRepository } from "../../ports/investment-repositories";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";
import type { SftpEndpoint, SftpLogins } from "../../ports/sftp-logins";

/**
 * What the System Settings › Feeds use cases need: the stored feeds and their SFTP logins (through
 * the SftpLogins port: the password is generated and shown once; the service keeps at most its hash).
 */
export interface FeedsDeps {
  repository: FeedRepository;
  /** The feeds' SFTP logins (the local drop's, or the storage account's local users in Azure). */
  logins: SftpLogins;
  clock: Clock;
  /** Each feed's newest job (its last file), for the feeds as answered. */
  jobs: Pick<JobRepository, "latestOfFeeds">;
}

/** The feeds as answered, each with its last job: two store reads for the whole page, never one per feed. */
export async function feedsAsAnswered(deps: FeedsDeps, stored: readonly StoredFeed[]): Promise<Feed[]> {
  const latest = stored.length === 0 ? new Map<string, Job>() : await deps.jobs.latestOfFeeds(stored.map((f) => f.id));
  return stored.map((f) => {
    const job = latest.get(f.id);
    return toPublicFeed(f, deps.logins.endpoint, job === undefined ? null : lastJobOf(job));
  });
}

/** One feed as answered, with its last job. */
export async function feedAsAnswered(deps: FeedsDeps, stored: StoredFeed): Promise<Feed> {
  const [feed] = await feedsAsAnswered(deps, [stored]);
  return feed ?? toPublicFeed(stored, deps.logins.endpoint);
}

/** The stored feed, or a 404. */
export async function storedFeed(repository: FeedRepository, id: string): Promise<StoredFeed> {
  const stored = await repository.get(id);
  if (stored === undefined) throw notFound(`Feed '${id}'`);
  return stored;
}

/** xml needs to know where its records are; the other formats have a default. */
export function requireRecordPath(d: Pick<FeedDefinition, "format" | "options">): void {
  if (d.format === "xml" && d.options.recordPath === undefined) {
    throw new AppError("VALIDATION_ERROR", "The request body failed validation", {
      details: [{ field: "options.recordPath", message: "is required for xml files" }],
    });
  }
}

/** The public feed with the password just issued (shown in this one answer only). */
export function withPassword(stored: StoredFeed, password: string, endpoint: SftpEndpoint): FeedWithPassword {
  const feed = toPublicFeed(stored, endpoint);
  return { ...feed, sftp: { ...feed.sftp, password } };
}
