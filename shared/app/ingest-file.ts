import { createHash } from "node:crypto";
import { pipeline, Transform, type Readable } from "node:stream";
import type { DataQualityCandidate } from "../domain/data-quality-exception";
import { AppError } from "../domain/errors";
import { compileFilePattern, feedCreateSchema, type FeedDefinition, type StoredFeed } from "../domain/feed";
import { compileMapping } from "../domain/feed-mapping";
import { RowValidation, type ValidationOutcome } from "../domain/feed-validation";
import { MAX_IMPORT_RECORDS, payloadKey, type DataType } from "../domain/import-payload";
import type { Job } from "../domain/job";
import { FileFormatError } from "../formats/source-record";
import type { Logger } from "../logging";
import type { Clock } from "../ports/clock";
import type { FeedRepository } from "../ports/feed-repository";
import type { FileStore } from "../ports/file-store";
import type { JobRepository } from "../ports/investment-repositories";
import type { Outbox } from "../ports/outbox";
import type { DataQualityExceptions } from "./data-quality-exceptions";
import { feedRecords } from "./feed-records";
import { jobEvent, type ImportService } from "./import/import-service";

export const INBOUND = "inbound";
export const ARCHIVE = "archive";
export const QUARANTINE = "quarantine";

export interface IngestDeps {
  feeds: FeedRepository;
  files: FileStore;
  jobs: JobRepository;
  outbox: Outbox;
  dataQuality: DataQualityExceptions;
  importer: Pick<ImportService, "execute">;
  clock: Clock;
  log: Logger;
  /** Records per import call (default and most MAX_IMPORT_RECORDS). */
  batchSize?: number;
  /**
   * The channel of a file that carries no `source` metadata: `blob` (an upload into inbound, the
   * default) or `sftp` (in Azure, where the storage account's own SFTP endpoint writes no metadata).
   */
  unlabelledSource?: "sftp" | "blob";
}

/** What became of one inbound file. */
export type IngestOutcome =
  | { action: "ignored" | "waiting" | "gone"; reason: string }
  | { action: "ingested" | "tested" | "duplicate" | "rejected" | "rerun"; jobId: string };

type Definition = FeedDefinition;

const hashOf = (...parts: string[]): string => createHash("sha256").update(parts.join("\u0000")).digest("hex");

/** The job of a file: the same for the same content of the same feed in the same status, so a re-run finds it. */
export const fileJobId = (feedId: string, mode: "live" | "testing", sha256: string): string => `job_${hashOf(feedId, mode, sha256).slice(0, 24)}`;

async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Hashes a file's bytes as a reader streams them, so validating the file and naming its job take one read. */
class HashingReader {
  private readonly hash = createHash("sha256");
  private complete = false;

  wrap(source: Readable): Readable {
    const hash = this.hash;
    const through = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
      flush: (done) => {
        this.complete = true;
        done();
      },
    });
    // A failing source fails the reader through `through`; a reader stopping early destroys both.
    return pipeline(source, through, () => undefined);
  }

  /** The hex SHA-256 of the whole file, or undefined when reading stopped before its end. */
  digest(): string | undefined {
    return this.complete ? this.hash.digest("hex") : undefined;
  }
}

const rowErrors = (outcome: ValidationOutcome): Job["errors"] =>
  outcome.errors.map((e) => ({ field: e.field, message: `row ${e.row}${e.column !== undefined ? ` (${e.column})` : ""}: ${e.message}` }));

/**
 * Ingests a file that landed in `inbound/<feedId>/<fileName>`: the feed's reader, mapping and validation
 * in a first pass that writes nothing; then (live feeds, accepted files) a second pass that imports the
 * valid rows through the import service. The file then goes to `archive`, or to `quarantine` when it
 * is rejected or unreadable. Files of no feed, or whose name the feed's pattern does not match, and files
 * of a paused feed, stay where they are.
 */
export class IngestFile {
  private readonly batchSize: number;

  constructor(private readonly deps: IngestDeps) {
    this.batchSize = Math.min(deps.batchSize ?? MAX_IMPORT_RECORDS, MAX_IMPORT_RECORDS);
  }

  async run(name: string): Promise<IngestOutcome> {
    const slash = name.indexOf("/");
    if (slash <= 0 || slash === name.length - 1) return this.leave(name, "ignored", "the path is not <feedId>/<fileName>");
    const feedId = name.slice(0, slash);
    const inboxName = name.slice(slash + 1);
    const baseName = inboxName.slice(inboxName.lastIndexOf("/") + 1);
    const stored = await this.deps.feeds.get(feedId);
    if (stored === undefined) return this.leave(name, "ignored", `no feed '${feedId}'`);
    const feed = definitionOf(stored);
    if (!compileFilePattern(feed.filePattern)(baseName)) return this.leave(name, "ignored", `"${baseName}" does not match the feed's filePattern ${JSON.stringify(feed.filePattern)}`);
    if (feed.status === "paused") return this.leave(name, "waiting", "the feed is paused");

    const info = await this.deps.files.info(INBOUND, name);
    if (info === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
    const mode = feed.status === "live" ? "live" : "testing";
    const { source, fileName } = this.originOf(inboxName, info.metadata);
    const base = { source, dataType: feed.dataType, feedId, fileName };

    // Pass 1: read, map and validate every row, hashing the bytes on the way (the content's SHA-256
    // names the job and finds duplicates); nothing is written.
    const validation = new RowValidation(feed.validation);
    const map = compileMapping(feed);
    const hashing = new HashingReader();
    let unreadable: FileFormatError | undefined;
    try {
      const stream = await this.deps.files.read(INBOUND, name);
      if (stream === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
      for await (const record of feedRecords(feed, hashing.wrap(stream))) {
        validation.accept(map(record));
        if (validation.settled) break;
      }
    } catch (error) {
      if (!(error instanceof FileFormatError)) throw error;
      unreadable = error;
    }
    // A file given up on before its end (unreadable, or rejected already): its hash needs the rest.
    let sha256 = hashing.digest();
    if (sha256 === undefined) {
      const again = await this.deps.files.read(INBOUND, name);
      if (again === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
      sha256 = await sha256Of(again);
    }
    const jobId = fileJobId(feedId, mode, sha256);
    const log = this.deps.log.with({ feedId, fileName, sha256, jobId });

    const existing = await this.deps.jobs.get(jobId);
    if (existing !== undefined && existing.status === "completed" && mode === "live") {
      // The job of this content finished: a re-run of the same blob (it was not moved on) or the content again.
      if (existing.fileName === fileName && info.lastModified.getTime() <= Date.parse(existing.startedAt)) {
        await this.deps.files.move(INBOUND, name, ARCHIVE);
        return { action: "rerun", jobId };
      }
      const duplicateId = `job_${hashOf(feedId, "duplicate", sha256, fileName, info.lastModified.toISOString()).slice(0, 24)}`;
      const now = this.deps.clock.now().toISOString();
      await this.finish({ ...base, id: duplicateId, status: "completed", counts: { received: existing.counts.received, accepted: 0, rejected: 0 }, errors: [], duplicateOf: existing.id, startedAt: now, completedAt: now, leaseUntil: null });
      await this.deps.files.move(INBOUND, name, ARCHIVE);
      log.info("file content already ingested; archived, nothing written", { duplicateOf: existing.id });
      return { action: "duplicate", jobId: duplicateId };
    }
    const startedAt = existing?.status === "running" ? existing.startedAt : this.deps.clock.now().toISOString();
    const job = (fields: Pick<Job, "status" | "counts" | "errors">): Job => ({ ...base, id: jobId, ...fields, startedAt, completedAt: this.deps.clock.now().toISOString(), leaseUntil: null });

    if (unreadable !== undefined) {
      const where = unreadable.row !== undefined ? ` (record ${unreadable.row})` : "";
      return this.reject(name, log, job({ status: "failed", counts: { received: 0, accepted: 0, rejected: 0 }, errors: [{ field: "file", message: `the file cannot be read as ${feed.format}${where}: ${unreadable.message}` }] }));
    }
    const outcome = validation.outcome();
    const counts = { received: outcome.received, accepted: 0, rejected: outcome.rejected };
    if (mode === "testing") {
      const verdict =
        outcome.status === "rejected"
          ? `testing: nothing was written; live, the file would be rejected (${outcome.reason})`
          : `testing: nothing was written; live, ${outcome.valid} row${outcome.valid === 1 ? "" : "s"} would be imported and ${outcome.rejected} rejected`;
      const tested = job({ status: "completed", counts: { ...counts, accepted: outcome.status === "accepted" ? outcome.valid : 0 }, errors: [{ field: "", message: verdict }, ...rowErrors(outcome)] });
      await this.finish(tested);
      await this.deps.files.move(INBOUND, name, ARCHIVE);
      log.info("testing feed: file read and validated, nothing written; archived", { counts: tested.counts });
      return { action: "tested", jobId };
    }
    if (outcome.status === "rejected") return this.reject(name, log, job({ status: "failed", counts, errors: [{ field: "file", message: outcome.reason }, ...rowErrors(outcome)] }));

    // Pass 2: the valid rows, imported in batches through the import service.
    if (outcome.valid === 0) {
      await this.finish(job({ status: "completed", counts, errors: rowErrors(outcome) }));
    } else {
      try {
        await this.importRows(feed, name, { ...base, jobId }, { received: outcome.received, rejected: outcome.rejected, errors: rowErrors(outcome) });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        // The import refused a call's rows (say, a reference it does not know). The calls before it
        // stored theirs, as their job says: the failed job keeps that count and says so.
        const stored = (await this.deps.jobs.get(jobId))?.counts.accepted ?? 0;
        const written = stored === 0 ? "nothing was written" : `${stored} row${stored === 1 ? "" : "s"} of the file's earlier import calls were stored (a fixed file sent again rewrites them idempotently)`;
        const details = (error.details ?? []).map((d) => ({ field: d.field, message: d.message }));
        return this.reject(name, log, job({ status: "failed", counts: { ...counts, accepted: stored }, errors: [{ field: "", message: `${error.message}; ${written}` }, ...details].slice(0, 1001) }));
      }
    }
    if (outcome.rejectedRows.length > 0) {
      const candidates: DataQualityCandidate[] = outcome.rejectedRows.map((r) => ({
        key: `feed-row:${feedId}:${sha256}:${r.row}`,
        type: "VALIDATION_FAILED",
        severity: "warning",
        message: `${fileName} row ${r.row}: ${r.errors.map((e) => `${e.field}${e.column !== undefined ? ` (${e.column})` : ""}: ${e.message}`).join("; ")}`,
        entity: { type: "feed", id: feedId },
      }));
      await this.deps.dataQuality.open(candidates, jobId);
    }
    await this.deps.files.move(INBOUND, name, ARCHIVE);
    log.info("file ingested; archived", { received: outcome.received, valid: outcome.valid, rejected: outcome.rejected });
    return { action: "ingested", jobId };
  }

  /**
   * Re-reads the file and imports its valid rows, a batch per call, all under the file's one job. The
   * calls run one after another, in the file's order; the next batch is read while one is written, so
   * at most two batches are held.
   */
  private async importRows(feed: Definition, name: string, origin: { source: Job["source"]; feedId: string; fileName: string; jobId: string }, file: { received: number; rejected: number; errors: Job["errors"] }): Promise<void> {
    const stream = await this.deps.files.read(INBOUND, name);
    if (stream === undefined) throw new Error(`the file ${name} left inbound during its import`);
    const map = compileMapping(feed);
    interface Batch {
      records: Record<string, unknown>[];
      /** The file's row of each record, to name rows in what the import refuses. */
      rows: number[];
    }
    let batch: Batch = { records: [], rows: [] };
    // A full batch waits until the next row shows whether it is the last.
    let full: Batch | undefined;
    let first = true;
    let writing: Promise<unknown> | undefined;
    const key = payloadKey[feed.dataType];
    const send = async ({ records, rows }: Batch, last: boolean): Promise<void> => {
      if (writing !== undefined) await writing;
      const part = { first, last };
      first = false;
      writing = this.deps.importer.execute(feed.dataType as DataType, { [key]: records }, { ...origin, file, part }).catch((error: unknown) => {
        throw error instanceof AppError ? withFileRows(error, key, rows) : error;
      });
      // Awaited by the next send or at the end; until then a failure must not count as unhandled.
      writing.catch(() => undefined);
    };
    try {
      for await (const record of feedRecords(feed, stream)) {
        const mapped = map(record);
        if (!mapped.ok) continue;
        if (full !== undefined) {
          await send(full, false);
          full = undefined;
        }
        batch.records.push(mapped.record);
        batch.rows.push(mapped.row);
        if (batch.records.length >= this.batchSize) {
          full = batch;
          batch = { records: [], rows: [] };
        }
      }
      if (full !== undefined) await send(full, batch.records.length === 0);
      if (batch.records.length > 0) await send(batch, true);
    } finally {
      // Whatever ended the reading, the part being written finishes (or fails) before this returns.
      if (writing !== undefined) await writing;
    }
  }

  private async reject(name: string, log: Logger, failed: Job): Promise<IngestOutcome> {
    await this.finish(failed);
    await this.deps.files.move(INBOUND, name, QUARANTINE);
    log.warn("file rejected; quarantined", { accepted: failed.counts.accepted, errors: failed.errors.slice(0, 5) });
    return { action: "rejected", jobId: failed.id };
  }

  /** Stores a finished job and announces it (refresh_job.completed or .failed) through the outbox. */
  private async finish(job: Job): Promise<void> {
    await this.deps.jobs.put(job);
    await this.deps.outbox.append([jobEvent(job)]);
  }

  /**
   * The channel a file came by and the name its job shows: a blob source's copy (stored under a
   * version folder so two versions cannot overwrite each other) by the customer's own blob name.
   */
  private originOf(inboxName: string, metadata: Record<string, string>): { source: Job["source"]; fileName: string } {
    const label = metadata["source"];
    const source = label === "sftp" || label === "blob" ? label : (this.deps.unlabelledSource ?? "blob");
    const customerName = metadata["sourcename"];
    if (customerName === undefined) return { source, fileName: inboxName };
    try {
      return { source, fileName: decodeURIComponent(customerName) };
    } catch {
      return { source, fileName: inboxName };
    }
  }

  private leave(name: string, action: "ignored" | "waiting" | "gone", reason: string): IngestOutcome {
    this.deps.log.info(`inbound file left alone: ${reason}`, { name });
    return { action, reason };
  }
}

/** The import's details name records of one call (`prices[3].isin`): named here by the file's row (`row 10004: isin`). */
function withFileRows(error: AppError, key: string, rows: readonly number[]): AppError {
  if (error.details === undefined) return error;
  const prefix = new RegExp(`^${key}\\[(\\d+)\\]\\.?`);
  const details = error.details.map((d) => {
    const m = prefix.exec(d.field);
    const row = m === null ? undefined : rows[Number(m[1])];
    return row === undefined ? d : { ...d, field: d.field.slice(m?.[0].length ?? 0) || "record", message: `row ${row}: ${d.message}` };
  });
  return new AppError(error.code, error.message, { details, cause: error });
}

/** The definition part of a stored feed, re-parsed so defaults the schema gained since are filled. */
function definitionOf(f: StoredFeed): Definition {
  const { name, provider, dataType, format, filePattern, options, mapping, validation, status } = f;
  return feedCreateSchema.parse({ name, provider, dataType, format, filePattern, options, mapping, validation, status }) as Definition;
}
