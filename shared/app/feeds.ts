import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { AppError, notFound } from "../domain/errors";
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
  type SftpEndpoint,
  type StoredFeed,
} from "../domain/feed";
import { compileMapping } from "../domain/feed-mapping";
import { DryRunBuilder, type DryRunSummary } from "../domain/feed-validation";
import { paginationOf, type Pagination } from "../domain/pagination";
import { hashSecret } from "../domain/secret-hash";
import { issuesToDetails } from "../domain/validation";
import { FileFormatError } from "../formats/source-record";
import type { Clock } from "../ports/clock";
import type { FeedRepository } from "../ports/feed-repository";
import { feedRecords } from "./feed-records";

/** The largest sample a dry run takes. */
export const DRY_RUN_MAX_BYTES = 10 * 1024 * 1024;

/** A generated SFTP password: 32 random bytes, base64url (256 bits). */
const newPassword = (): string => randomBytes(32).toString("base64url");

/** The login of a feed: derived from its id, so unique as the id is. */
const usernameOf = (id: string): string => `feed-${id.slice("fd_".length)}`;

/** xml needs to know where its records are; the other formats have a default. */
function requireRecordPath(d: Pick<FeedDefinition, "format" | "options">): void {
  if (d.format === "xml" && d.options.recordPath === undefined) {
    throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details: [{ field: "options.recordPath", message: "is required for xml files" }] });
  }
}

/**
 * System Settings › Feeds: how a provider's files are recognised, read, mapped and validated, with
 * the feed's SFTP login (the password is generated, shown once and stored only as a scrypt hash).
 * The dry run reads a sample through the same readers and mapping as ingestion and writes nothing.
 */
export class Feeds {
  constructor(
    private readonly repository: FeedRepository,
    private readonly sftp: SftpEndpoint,
    private readonly clock: Clock,
  ) {}

  async create(input: FeedCreate): Promise<FeedWithPassword> {
    requireRecordPath(input);
    const id = `fd_${randomBytes(9).toString("hex")}`;
    const password = newPassword();
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
      sftp: { username: usernameOf(id), publicKeys: [], passwordHash: await hashSecret(password) },
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.create(stored);
    return this.withPassword(stored, password);
  }

  async list(page: number, pageSize: number): Promise<{ items: Feed[]; pagination: Pagination }> {
    const result = await this.repository.list(page, pageSize);
    return { items: result.items.map((f) => toPublicFeed(f, this.sftp)), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  async get(id: string): Promise<Feed> {
    return toPublicFeed(await this.stored(id), this.sftp);
  }

  /** The definition that results is validated whole (a new format against the stored options, a new data type against the mapping). */
  async update(id: string, patch: FeedPatch): Promise<Feed> {
    const next = await this.repository.update(id, (current) => {
      const checked = patchedDefinition(definitionOf(current), patch);
      if (!checked.success) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details: issuesToDetails(checked.error.issues) });
      requireRecordPath(checked.data);
      return {
        ...current,
        ...checked.data,
        sftp: patch.sftp === undefined ? current.sftp : { ...current.sftp, publicKeys: patch.sftp.publicKeys.map((k) => k.trim()) },
        updatedAt: this.clock.now().toISOString(),
      };
    });
    if (next === undefined) throw notFound(`Feed '${id}'`);
    return toPublicFeed(next, this.sftp);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.repository.delete(id))) throw notFound(`Feed '${id}'`);
  }

  /** A new password, shown only in this answer; the old one stops working at once. */
  async rotateCredentials(id: string): Promise<FeedWithPassword> {
    const password = newPassword();
    const passwordHash = await hashSecret(password);
    const next = await this.repository.update(id, (stored) => ({ ...stored, sftp: { ...stored.sftp, passwordHash }, updatedAt: this.clock.now().toISOString() }));
    if (next === undefined) throw notFound(`Feed '${id}'`);
    return this.withPassword(next, password);
  }

  /**
   * Reads `file` as the feed says (format, options), maps each record and collects counts, row
   * errors and a preview. Nothing is written. A name the pattern does not match, or a file the reader
   * cannot read, is a 422.
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
    const map = compileMapping(definition);
    const builder = new DryRunBuilder();
    try {
      for await (const record of feedRecords(definition, Readable.from([file]))) builder.accept(map(record));
    } catch (error) {
      if (!(error instanceof FileFormatError)) throw error;
      const where = error.row !== undefined ? ` (record ${error.row})` : "";
      throw new AppError("VALIDATION_ERROR", `The file cannot be read as ${definition.format}${where}`, {
        details: [{ field: "file", message: error.message }],
      });
    }
    return builder.summary();
  }

  private withPassword(stored: StoredFeed, password: string): FeedWithPassword {
    const feed = toPublicFeed(stored, this.sftp);
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
