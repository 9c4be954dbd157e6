import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { Slots } from "../../domain/concurrency";
import { AppError, notFound } from "../../domain/errors";
import {
  compileFilePattern,
  feedCreateSchema,
  patchedDefinition,
  toPublicFeed,
  type Feed,
  type FeedCreate,
  type FeedDefinition,
  type FeedPatch,
  type FeedWithPassword,
  type StoredFeed,
} from "../../domain/feed";
import { dryRunSummary, type DryRunSummary } from "../../domain/feed-validation";
import { paginationOf, type Pagination } from "../../domain/pagination";
import { issuesToDetails } from "../../domain/validation";
import { FileFormatError } from "../../domain/source-record";
import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";
import type { FileListing } from "../../ports/file-store";
import type { SftpLogins, StoredSftpLogin } from "../../ports/sftp-logins";
import type { FileReaders } from "../../ports/file-readers";
import { firstPass } from "./feed-records";

/** The largest sample a dry run takes. */
export const DRY_RUN_MAX_BYTES = 10 * 1024 * 1024;

/** What a dry run refused for want of a slot asks the client to wait. */
const DRY_RUN_RETRY_AFTER_SECONDS = 5;

/** The container files are delivered to, one folder per feed: `inbound/<feedId>/<fileName>`. */
const INBOUND = "inbound";

export interface FeedsDeps {
  repository: FeedRepository;
  /** The readers of the feeds' file formats (the dry run reads with them). */
  readers: FileReaders;
  /** The feeds' SFTP logins (the local drop's, or the storage account's local users in Azure). */
  logins: SftpLogins;
  /** The inbound files, listed and announced again when a paused feed resumes. */
  inbound: FileListing;
  /** Dry runs this process parses at once (FEED_DRY_RUN_CONCURRENCY). */
  dryRunConcurrency: number;
  clock: Clock;
  log: Logger;
}

/** xml needs to know where its records are; the other formats have a default. */
function requireRecordPath(d: Pick<FeedDefinition, "format" | "options">): void {
  if (d.format === "xml" && d.options.recordPath === undefined) {
    throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details: [{ field: "options.recordPath", message: "is required for xml files" }] });
  }
}

/**
 * System Settings › Feeds: how a provider's files are recognised, read, mapped and validated, with
 * the feed's SFTP login (through the SftpLogins port: the password is generated and shown once; the
 * service keeps at most its hash). The dry run reads a sample through the same readers and mapping as
 * ingestion and writes nothing. A paused feed's files wait in its inbox; when the feed leaves
 * `paused` they are announced again, so ingestion takes them without a new upload.
 */
export class Feeds {
  private readonly repository: FeedRepository;
  private readonly logins: SftpLogins;
  private readonly clock: Clock;
  private readonly dryRuns: Slots;

  constructor(private readonly deps: FeedsDeps) {
    this.repository = deps.repository;
    this.logins = deps.logins;
    this.clock = deps.clock;
    this.dryRuns = new Slots(deps.dryRunConcurrency);
  }

  async create(input: FeedCreate): Promise<FeedWithPassword> {
    requireRecordPath(input);
    const id = `fd_${randomBytes(9).toString("hex")}`;
    const issued = await this.logins.create(id);
    const now = this.clock.now().toISOString();
    const stored: StoredFeed = {
      id,
      name: input.name,
      provider: input.provider,
      dataType: input.dataType,
      format: input.format,
      filePattern: input.filePattern,
      options: input.options,
      mapping: input.mapping,
      validation: input.validation,
      status: input.status,
      sftp: issued.login,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.repository.create(stored);
    } catch (error) {
      // No login without its feed: a login nobody can see or delete would stay open.
      await this.logins.delete(id, issued.login).catch(() => undefined);
      throw error;
    }
    return this.withPassword(stored, issued.password);
  }

  async list(page: number, pageSize: number): Promise<{ items: Feed[]; pagination: Pagination }> {
    const result = await this.repository.list(page, pageSize);
    return { items: result.items.map((f) => toPublicFeed(f, this.logins.endpoint)), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  async get(id: string): Promise<Feed> {
    return toPublicFeed(await this.stored(id), this.logins.endpoint);
  }

  /**
   * The definition that results is validated whole (a new format against the stored options, a new
   * data type against the mapping). New public keys are checked with the rest first, then set on the
   * login, then stored. A feed that leaves `paused` has its waiting files ingested.
   */
  async update(id: string, patch: FeedPatch): Promise<Feed> {
    let login: StoredSftpLogin | undefined;
    if (patch.sftp !== undefined) {
      const current = await this.stored(id);
      this.checked(current, patch);
      login = await this.logins.setPublicKeys(id, current.sftp, patch.sftp.publicKeys.map((k) => k.trim()));
    }
    let previous: StoredFeed | undefined;
    const next = await this.repository.update(id, (current) => {
      previous = current;
      const checked = this.checked(current, patch);
      return { ...current, ...checked, sftp: login ?? current.sftp, updatedAt: this.clock.now().toISOString() };
    });
    if (next === undefined || previous === undefined) throw notFound(`Feed '${id}'`);
    if (previous.status === "paused" && next.status !== "paused") await this.resume(next);
    return toPublicFeed(next, this.logins.endpoint);
  }

  async delete(id: string): Promise<void> {
    const stored = await this.stored(id);
    // The login goes first: a feed whose login could not be removed can be deleted again.
    await this.logins.delete(id, stored.sftp);
    if (!(await this.repository.delete(id))) throw notFound(`Feed '${id}'`);
  }

  /** A new password, shown only in this answer; the old one stops working at once. */
  async rotateCredentials(id: string): Promise<FeedWithPassword> {
    const current = await this.stored(id);
    const issued = await this.logins.rotatePassword(id, current.sftp);
    const next = await this.repository.update(id, (stored) => ({ ...stored, sftp: { ...issued.login, publicKeys: stored.sftp.publicKeys }, updatedAt: this.clock.now().toISOString() }));
    if (next === undefined) throw notFound(`Feed '${id}'`);
    return this.withPassword(next, issued.password);
  }

  /**
   * Announces the files waiting in the feed's inbox again (a new metadata stamp gives each a new
   * ETag, which the blob trigger takes as a new version), so ingestion reads them as the feed now says.
   */
  private async resume(feed: StoredFeed): Promise<void> {
    const stamp = this.clock.now().toISOString();
    let resumed = 0;
    try {
      for await (const name of this.deps.inbound.list(INBOUND, `${feed.id}/`)) {
        if (await this.deps.inbound.touch(INBOUND, name, "resumedAt", stamp)) resumed++;
      }
    } catch (error) {
      this.deps.log.error("resuming a feed: its waiting files could not all be announced again", { feedId: feed.id, resumed, error: error instanceof Error ? error.message : String(error) });
      throw new AppError("SERVICE_UNAVAILABLE", `The feed is now ${feed.status}, but its waiting files could not all be picked up; set it to paused and back to try again`, { cause: error });
    }
    if (resumed > 0) this.deps.log.info("feed resumed: waiting files announced again", { feedId: feed.id, status: feed.status, files: resumed });
  }

  /** The patched definition, or a 422 naming every problem. */
  private checked(current: StoredFeed, patch: FeedPatch): FeedDefinition {
    const checked = patchedDefinition(definitionOf(current), patch);
    if (!checked.success) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details: issuesToDetails(checked.error.issues) });
    requireRecordPath(checked.data);
    return checked.data;
  }

  /**
   * The first pass of ingestion on `file`: read as the feed says (format, options), each record
   * mapped and validated under the feed's `validation`, giving the counts, row errors, a preview and
   * the verdict a delivered file would get. Nothing is written. A name the pattern does not match, or
   * a file the reader cannot read, is a 422. Parsing holds memory of this process (up to about 100 MB
   * for a workbook), so only so many run at once; one more is a 503 with Retry-After.
   */
  async dryRun(id: string, fileName: string, file: Buffer): Promise<DryRunSummary> {
    const feed = await this.stored(id);
    // A stored feed was valid when saved; re-parsing fills defaults should the schema have grown since.
    const definition = feedCreateSchema.parse(definitionOf(feed));
    if (!compileFilePattern(definition.filePattern)(fileName)) {
      throw new AppError("VALIDATION_ERROR", "The file name does not match the feed's filePattern", {
        details: [{ field: "fileName", message: `"${fileName}" does not match ${JSON.stringify(definition.filePattern)}` }],
      });
    }
    const release = this.dryRuns.tryAcquire();
    if (release === undefined) {
      throw new AppError("SERVICE_UNAVAILABLE", `${this.dryRuns.limit} dry run${this.dryRuns.limit === 1 ? " is" : "s are"} running on this instance, as many as it takes at once; retry shortly`, {
        headers: { "Retry-After": String(DRY_RUN_RETRY_AFTER_SECONDS) },
      });
    }
    try {
      return dryRunSummary(await firstPass(this.deps.readers, definition, Readable.from([file])));
    } catch (error) {
      if (!(error instanceof FileFormatError)) throw error;
      const where = error.row !== undefined ? ` (record ${error.row})` : "";
      throw new AppError("VALIDATION_ERROR", `The file cannot be read as ${definition.format}${where}`, {
        details: [{ field: "file", message: error.message }],
      });
    } finally {
      release();
    }
  }

  private withPassword(stored: StoredFeed, password: string): FeedWithPassword {
    const feed = toPublicFeed(stored, this.logins.endpoint);
    return { ...feed, sftp: { ...feed.sftp, password } };
  }

  private async stored(id: string): Promise<StoredFeed> {
    const stored = await this.repository.get(id);
    if (stored === undefined) throw notFound(`Feed '${id}'`);
    return stored;
  }
}

/** The definition part of a stored feed (without id, login and timestamps). */
function definitionOf(f: StoredFeed): FeedDefinition {
  const { name, provider, dataType, format, filePattern, options, mapping, validation, status } = f;
  return { name, provider, dataType, format, filePattern, options, mapping, validation, status };
}
