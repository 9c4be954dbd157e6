import type { DataQualityCandidate } from "../../domain/data-quality-exception";
import { AppError } from "../../domain/errors";
import { compileFilePattern, type FeedDefinition } from "../../domain/feed";
import type { ValidationOutcome } from "../../domain/feed-validation";
import type { Job } from "../../domain/job";
import { FileFormatError } from "../../domain/source-record";
import { printable } from "../../domain/storable";
import type { Logger } from "../../logging";
import { withWriteContext } from "../../observability/write-context";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";
import type { FileStore, StoredFileInfo } from "../../ports/file-store";
import type { IngestAttempts } from "../../ports/ingest-attempts";
import type { JobRepository } from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";
import type { DataQualityExceptions } from "../investments/data-quality-exceptions";
import type { FileReaders } from "../../ports/file-readers";
import { firstPass } from "./feed-records";
import { HashingReader, sha256Of } from "./file-hashing";
import type { ImportRecords } from "../investments/import/import-records";
import { COMMIT_BATCH } from "../investments/import/import-types";
import { jobEvent } from "../investments/job-event";
import { inboundNameProblem } from "../../domain/inbound-name";
import { refusedFileName } from "./refused-file-name";
import { importValidRows } from "./ingest-file-import";
import {
  ARCHIVE,
  definitionOf,
  fileJobId,
  fileVersion,
  hashOf,
  INBOUND,
  MAX_UNFINISHED_ATTEMPTS,
  originOf,
  QUARANTINE,
  rowErrors,
  writerOf,
  type IngestOutcome,
  type Origin,
} from "./ingest-file-parts";

/** The metadata of a quarantined file copied back into inbound to be processed again: its job, and the job it failed. */
export function reprocessOf(metadata: Record<string, string>): { job: string; of: string } | undefined {
  const job = metadata["reprocessjob"];
  const of = metadata["reprocessof"];
  return job !== undefined && of !== undefined ? { job, of } : undefined;
}

export { fileJobId, MAX_UNFINISHED_ATTEMPTS, type IngestOutcome } from "./ingest-file-parts";

export interface IngestFileDeps {
  feeds: FeedRepository;
  files: FileStore;
  /** The readers of the feeds' file formats. */
  readers: FileReaders;
  jobs: JobRepository;
  outbox: Outbox;
  dataQuality: DataQualityExceptions;
  importer: Pick<ImportRecords, "execute">;
  /** Attempts that started and never finished, per file version: the crash guard. */
  attempts: IngestAttempts;
  clock: Clock;
  log: Logger;
  /** Records per import call (default and most COMMIT_BATCH: one stored batch per call). */
  batchSize?: number;
  /**
   * The channel of a file that carries no `source` metadata: `blob` (an upload into inbound, the
   * default) or `sftp` (in Azure, where the storage account's own SFTP endpoint writes no metadata).
   */
  unlabelledSource?: "sftp" | "blob";
}

/**
 * Ingests a file that landed in `inbound/<feedId>/<fileName>`: the feed's reader, mapping and validation
 * in a first pass that writes nothing; then (live feeds, accepted files) a second pass that imports the
 * valid rows through the import service. The file then goes to `archive`, or to `quarantine` when it
 * is rejected or unreadable. Files of no feed, or whose name the feed's pattern does not match, and files
 * of a paused feed, stay where they are.
 */
export class IngestFile {
  private readonly batchSize: number;

  constructor(private readonly deps: IngestFileDeps) {
    this.batchSize = Math.min(deps.batchSize ?? COMMIT_BATCH, COMMIT_BATCH);
  }

  async execute(name: string): Promise<IngestOutcome> {
    const slash = name.indexOf("/");
    if (slash <= 0 || slash === name.length - 1)
      return this.leave(name, "ignored", "the path is not <feedId>/<fileName>");
    const feedId = name.slice(0, slash);
    const inboxName = name.slice(slash + 1);
    const baseName = inboxName.slice(inboxName.lastIndexOf("/") + 1);
    const stored = await this.deps.feeds.get(feedId);
    if (stored === undefined) return this.leave(name, "ignored", `no feed '${feedId}'`);
    const feed = definitionOf(stored);
    // Before anything else, whatever the feed's status: a name no store can hold is refused, not read.
    if (inboundNameProblem(inboxName) !== undefined) return this.refuseName(name, { ...feed, id: feedId });
    if (!compileFilePattern(feed.filePattern)(baseName))
      return this.leave(
        name,
        "ignored",
        `"${baseName}" does not match the feed's filePattern ${JSON.stringify(feed.filePattern)}`,
      );
    if (feed.status === "paused") return this.leave(name, "waiting", "the feed is paused");

    const info = await this.deps.files.info(INBOUND, name);
    if (info === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
    const mode = feed.status === "live" ? "live" : "testing";
    const { source, fileName } = originOf(inboxName, info.metadata, this.deps.unlabelledSource ?? "blob");
    const reprocess = reprocessOf(info.metadata);
    const base: Origin = {
      source,
      dataType: feed.dataType,
      feedId,
      fileName,
      ...(reprocess !== undefined ? { reprocessOf: reprocess.of } : {}),
    };

    // The crash guard: the attempt is recorded in the store before a byte is read, and forgotten
    // when it ends, however. A version whose attempts keep ending the process (out of memory, kill
    // -9) is quarantined instead of being read again; a single interrupted attempt is simply run
    // again (and finishes the same job: its id comes from the content).
    const version = fileVersion(name, info);
    const started = await this.deps.attempts.begin(version, this.deps.clock.now());
    try {
      if (started > MAX_UNFINISHED_ATTEMPTS) return await this.giveUp(name, feed, mode, base, info, started - 1);
      // The versions the file's records make name the feed (or the blob source that brought the file) and the
      // ingestion's trace, which a person can follow in the logs.
      return await withWriteContext(writerOf(feedId, info.metadata), () => this.ingest(name, feed, mode, base, info));
    } finally {
      await this.deps.attempts.end(version).catch((error: unknown) => {
        this.deps.log.warn("the ingestion attempt could not be marked finished; a later crash of this file counts it", {
          name,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }
  }

  /** Passes 1 and 2 of one inbound file, and where it goes. */
  private async ingest(
    name: string,
    feed: FeedDefinition,
    mode: "live" | "testing",
    base: Origin,
    info: StoredFileInfo,
  ): Promise<IngestOutcome> {
    const { feedId, fileName } = base;

    // Pass 1: read, map and validate every row, hashing the bytes on the way (the content's SHA-256
    // names the job and finds duplicates); nothing is written. A dry run is this same pass.
    const hashing = new HashingReader();
    // The file's verdict, or why it cannot be read.
    let first: ValidationOutcome | FileFormatError;
    try {
      const stream = await this.deps.files.read(INBOUND, name);
      if (stream === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
      first = await firstPass(this.deps.readers, feed, hashing.wrap(stream));
    } catch (error) {
      if (!(error instanceof FileFormatError)) throw error;
      first = error;
    }
    // A file given up on before its end (unreadable): its hash needs the rest.
    let sha256 = hashing.digest();
    if (sha256 === undefined) {
      const again = await this.deps.files.read(INBOUND, name);
      if (again === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
      sha256 = await sha256Of(again);
    }
    // A file processed again has the job its request named, and is no duplicate of its own content.
    const again = reprocessOf(info.metadata);
    const jobId = again?.job ?? fileJobId(feedId, mode, sha256);
    const log = this.deps.log.with({ feedId, fileName, sha256, jobId });

    const existing = await this.deps.jobs.get(jobId);
    if (again !== undefined && existing?.status === "completed") {
      // Its job completed and the file was not moved on (a crash between the two): a re-run. A job
      // the reaper failed meanwhile (the file waited, say, while its feed was paused) is run now.
      await this.deps.files.move(INBOUND, name, ARCHIVE);
      return { action: "rerun", jobId };
    }
    if (again === undefined && existing !== undefined && existing.status === "completed" && mode === "live") {
      // The job of this content finished: a re-run of the same blob (it was not moved on) or the content again.
      if (existing.fileName === fileName && info.lastModified.getTime() <= Date.parse(existing.startedAt)) {
        await this.deps.files.move(INBOUND, name, ARCHIVE);
        return { action: "rerun", jobId };
      }
      const duplicateId = `job_${hashOf(feedId, "duplicate", sha256, fileName, info.lastModified.toISOString()).slice(0, 24)}`;
      const now = this.deps.clock.now().toISOString();
      await this.finish({
        ...base,
        id: duplicateId,
        status: "completed",
        counts: { received: existing.counts.received, accepted: 0, rejected: 0, removed: 0 },
        errors: [],
        duplicateOf: existing.id,
        startedAt: now,
        completedAt: now,
        leaseUntil: null,
      });
      await this.deps.files.move(INBOUND, name, ARCHIVE);
      log.info("file content already ingested; archived, nothing written", { duplicateOf: existing.id });
      return { action: "duplicate", jobId: duplicateId };
    }
    const startedAt = existing?.status === "running" ? existing.startedAt : this.deps.clock.now().toISOString();
    const job = (fields: Pick<Job, "status" | "counts" | "errors">): Job => ({
      ...base,
      id: jobId,
      ...fields,
      startedAt,
      completedAt: this.deps.clock.now().toISOString(),
      leaseUntil: null,
    });

    if (first instanceof FileFormatError) {
      const where = first.row !== undefined ? ` (record ${first.row})` : "";
      return this.quarantine(
        sha256,
        name,
        log,
        job({
          status: "failed",
          counts: { received: 0, accepted: 0, rejected: 0, removed: 0 },
          errors: [
            {
              field: "file",
              message: `the file cannot be read as ${feed.format}${where}: ${printable(first.message)}`,
            },
          ],
        }),
      );
    }
    const outcome = first;
    const counts = { received: outcome.received, accepted: 0, rejected: outcome.rejected, removed: 0 };
    if (mode === "testing") {
      const verdict =
        outcome.status === "rejected"
          ? `testing: nothing was written; live, the file would be rejected (${outcome.reason})`
          : `testing: nothing was written; live, ${outcome.valid} row${outcome.valid === 1 ? "" : "s"} would be imported and ${outcome.rejected} rejected`;
      const tested = job({
        status: "completed",
        counts: { ...counts, accepted: outcome.status === "accepted" ? outcome.valid : 0 },
        errors: [{ field: "", message: verdict }, ...rowErrors(outcome)],
      });
      await this.finish(tested);
      await this.deps.files.move(INBOUND, name, ARCHIVE);
      log.info("testing feed: file read and validated, nothing written; archived", { counts: tested.counts });
      return { action: "tested", jobId };
    }
    if (outcome.status === "rejected")
      return this.quarantine(
        sha256,
        name,
        log,
        job({ status: "failed", counts, errors: [{ field: "file", message: outcome.reason }, ...rowErrors(outcome)] }),
      );

    // Pass 2: the valid rows (an accepted file has at least one), imported in batches through the import service.
    try {
      await importValidRows(
        this.deps,
        this.batchSize,
        feed,
        name,
        { ...base, jobId },
        { received: outcome.received, rejected: outcome.rejected, errors: rowErrors(outcome) },
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      // The import refused a call's rows (say, a reference it does not know). The calls before it
      // stored theirs, as their job says: the failed job keeps that count and says so.
      const storedCounts = (await this.deps.jobs.get(jobId))?.counts;
      const stored = storedCounts?.accepted ?? 0;
      const written =
        stored === 0
          ? "nothing was written"
          : `${stored} row${stored === 1 ? "" : "s"} of the file's earlier import calls were stored (a fixed file sent again rewrites them idempotently)`;
      const details = (error.details ?? []).map((d) => ({ field: d.field, message: d.message }));
      return this.quarantine(
        sha256,
        name,
        log,
        job({
          status: "failed",
          counts: { ...counts, accepted: stored, removed: storedCounts?.removed ?? 0 },
          errors: [{ field: "", message: `${error.message}; ${written}` }, ...details].slice(0, 1001),
        }),
      );
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
    log.info("file ingested; archived", {
      received: outcome.received,
      valid: outcome.valid,
      rejected: outcome.rejected,
    });
    return { action: "ingested", jobId };
  }

  /**
   * Quarantines a file whose earlier attempts all ended their process without finishing, reading it
   * only to hash it (in bounded memory): its job says so, `refresh_job.failed` goes out, and it is
   * not read again. A job an interrupted import left running is the one that fails, keeping the
   * counts it reported.
   */
  private async giveUp(
    name: string,
    feed: FeedDefinition,
    mode: "live" | "testing",
    base: Origin,
    info: StoredFileInfo,
    crashed: number,
  ): Promise<IngestOutcome> {
    const stream = await this.deps.files.read(INBOUND, name);
    if (stream === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
    const sha256 = await sha256Of(stream);
    const contentJob = reprocessOf(info.metadata)?.job ?? fileJobId(base.feedId, mode, sha256);
    const running = await this.deps.jobs.get(contentJob);
    const interrupted = running?.status === "running" ? running : undefined;
    // Not over a finished job of the same content: this delivery gets a job of its own.
    const id =
      interrupted !== undefined || running === undefined
        ? contentJob
        : `job_${hashOf(base.feedId, "crashed", sha256, name, info.lastModified.toISOString()).slice(0, 24)}`;
    const now = this.deps.clock.now().toISOString();
    const message = `ingestion of this file crashed repeatedly: ${crashed} attempts started and none finished (each ended the process running it, e.g. out of memory or killed); the file is quarantined and not tried again`;
    const log = this.deps.log.with({
      feedId: base.feedId,
      fileName: base.fileName,
      sha256,
      jobId: id,
      format: feed.format,
    });
    log.error("file given up on after repeated crashes", { attempts: crashed });
    return this.quarantine(sha256, name, log, {
      ...base,
      id,
      status: "failed",
      counts: interrupted?.counts ?? { received: 0, accepted: 0, rejected: 0, removed: 0 },
      errors: [{ field: "file", message }],
      startedAt: interrupted?.startedAt ?? now,
      completedAt: now,
      leaseUntil: null,
    });
  }

  /** A file whose name no store can hold: a failed job saying so, and the file quarantined unread. */
  private async refuseName(name: string, feed: { id: string; dataType: Job["dataType"] }): Promise<IngestOutcome> {
    const info = await this.deps.files.info(INBOUND, name);
    if (info === undefined) return this.leave(name, "gone", "the file is no longer in inbound");
    const now = this.deps.clock.now().toISOString();
    const job = refusedFileName(name, feed, info, this.deps.unlabelledSource ?? "blob", now);
    if (job === undefined) throw new Error("refuseName called for a name that can be held");
    return this.reject(name, this.deps.log.with({ feedId: feed.id, fileName: job.fileName, jobId: job.id }), job);
  }

  /** Rejects a file whose content is known: its job says where the file is kept, to download or process again. */
  private quarantine(sha256: string, name: string, log: Logger, failed: Job): Promise<IngestOutcome> {
    return this.reject(name, log, { ...failed, file: { container: QUARANTINE, name, sha256 } });
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

  private leave(name: string, action: "ignored" | "waiting" | "gone", reason: string): IngestOutcome {
    this.deps.log.info(`inbound file left alone: ${reason}`, { name });
    return { action, reason };
  }
}
