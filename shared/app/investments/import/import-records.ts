import { randomUUID } from "node:crypto";
import type { DataType, ImportResult } from "../../../domain/import-payload";
import { AppError } from "../../../domain/errors";
import { acceptedOf, leaseFrom, type Job } from "../../../domain/job";
import type { Clock } from "../../../ports/clock";
import type {
  FxRateRepository,
  JobRepository,
  PositionRepository,
  PriceRepository,
  SecurityRepository,
  TransactionRepository,
} from "../../../ports/investment-repositories";
import type { MessageBus } from "../../../ports/message-bus";
import type { Outbox } from "../../../ports/outbox";
import type { PortfolioRepository } from "../../../ports/portfolio-repository";
import { withWriteContext } from "../../../observability/write-context";
import type { DataQualityExceptions } from "../data-quality-exceptions";
import { jobEvent } from "../job-event";
import { prepareFxRates } from "./import-fx-rates";
import { preparePositions } from "./import-positions";
import { preparePrices } from "./import-prices";
import { prepareSecurities } from "./import-securities";
import { prepareTransactions } from "./import-transactions";
import { COMMIT_BATCH, sumCounts, type CommitProgress, type ImportCounts, type PreparedImport } from "./import-types";
import { ReferenceResolver } from "./reference-resolver";
import { StaleMarking } from "./stale-marking";
import { parseRecords, Problems, type RecordOf } from "./validate-payload";

export interface ImportRecordsDeps {
  portfolios: PortfolioRepository;
  securities: SecurityRepository;
  prices: PriceRepository;
  fxRates: FxRateRepository;
  positions: PositionRepository;
  transactions: TransactionRepository;
  jobs: JobRepository;
  outbox: Outbox;
  dataQuality: DataQualityExceptions;
  /** Where the valuations the import's data makes due are announced (the `valuations` queue). */
  messageBus: MessageBus;
  /** Seconds the valuation messages wait on the queue (default 0). */
  valuationDelaySeconds?: number;
  clock: Clock;
  priceJumpThreshold: number;
  /** Records per stored batch (default COMMIT_BATCH). */
  commitBatch?: number;
}

export interface ImportSource {
  source: Job["source"];
  feedId?: string;
  fileName?: string;
  /** A file processed again: the failed job whose file it is (the job says so). */
  reprocessOf?: string;
  /** The job's id when the caller names it (a file's ingestion: the same id on a re-run, so it is not doubled). */
  jobId?: string;
  /**
   * A file's totals when the records are the valid rows of a file: the job then counts the file's
   * rows as received and its rejected rows (with their errors), not only what is written.
   */
  file?: { received: number; rejected: number; errors: Job["errors"] };
  /**
   * One part of a file imported in several calls under one job (`jobId`): a part that is not the
   * first continues the stored job (its accepted count adds up); a part that is not the last leaves
   * the job running (no refresh_job event yet).
   */
  part?: { first: boolean; last: boolean };
}

export type ImportRequest = {
  dataType: DataType;
  /** Default: a REST import. */
  origin?: ImportSource;
} & (
  | {
      /** The payload as received: validated here, record by record. */
      body: unknown;
    }
  | {
      /**
       * Records the import's own record schema (`recordSchemas[dataType]`) has already parsed, as a
       * feed's mapping does for every row: not parsed a second time, nor held to a REST body's record limit.
       */
      checked: readonly Record<string, unknown>[];
    }
);

/**
 * One import, whatever brought it (REST, SFTP or blob): validate everything, then write by natural
 * key, record the refresh job, append events, open data-quality exceptions and mark what the data makes
 * stale. It answers without waiting for valuation: the `valuations` queue works the markers off.
 */
export class ImportRecords {
  constructor(private readonly deps: ImportRecordsDeps) {}

  execute(request: ImportRequest): Promise<ImportResult> {
    const jobId = request.origin?.jobId ?? `job_${randomUUID()}`;
    // Every version the import records names its job (who and which request: where the import entered).
    return withWriteContext({ jobId }, () => this.importAs(jobId, request));
  }

  private async importAs(jobId: string, request: ImportRequest): Promise<ImportResult> {
    const { dataType, origin = { source: "api" } } = request;
    const prepared = await this.prepare(request);
    const started = this.deps.clock.now();
    // The job as stored when this call continues or repeats one (a feed's job: a later part of its file,
    // or a retry after a failed or killed attempt): the job started when it first did.
    const stored = origin.jobId !== undefined ? await this.deps.jobs.get(origin.jobId) : undefined;
    const continued = origin.part !== undefined && !origin.part.first ? stored : undefined;
    // What earlier parts of the same file stored (and removed).
    const prior = continued?.counts.accepted ?? 0;
    const priorRemoved = continued?.counts.removed ?? 0;
    let job: Job = {
      id: jobId,
      source: origin.source,
      dataType,
      feedId: origin.feedId ?? null,
      fileName: origin.fileName ?? null,
      ...(origin.reprocessOf !== undefined ? { reprocessOf: origin.reprocessOf } : {}),
      status: "running",
      counts: {
        received: origin.file?.received ?? prepared.received,
        accepted: 0,
        rejected: origin.file?.rejected ?? 0,
        removed: 0,
      },
      errors: origin.file?.errors ?? [],
      startedAt: stored?.startedAt ?? started.toISOString(),
      completedAt: null,
      leaseUntil: leaseFrom(started),
    };
    if (continued !== undefined) job = { ...job, counts: { ...job.counts, accepted: prior, removed: priorRemoved } };
    await this.deps.jobs.put(job);
    // What the batches stored so far: the job says so after every batch (renewing its lease), so
    // neither a failure nor a dead process leaves a job claiming nothing was written.
    let written: ImportCounts = { created: 0, updated: 0, unchanged: 0, removed: 0 };
    const countsNow = (c: ImportCounts): Job["counts"] => ({
      ...job.counts,
      accepted: prior + acceptedOf(c),
      removed: priorRemoved + c.removed,
    });
    const renew = async (): Promise<void> => {
      job = { ...job, counts: countsNow(written), leaseUntil: leaseFrom(this.deps.clock.now()) };
      await this.deps.jobs.put(job);
    };
    const progress: CommitProgress = {
      batchSize: this.deps.commitBatch ?? COMMIT_BATCH,
      stored: async (counts) => {
        written = sumCounts([written, counts]);
        await renew();
      },
    };
    const stale = new StaleMarking(
      this.deps.portfolios,
      this.deps.positions,
      this.deps.messageBus,
      this.deps.clock,
      job.id,
      this.deps.valuationDelaySeconds ?? 0,
    );
    // A file's snapshots are built by all its calls: valued once its last call is stored.
    const part = origin.part;
    const fileCalls =
      prepared.snapshotsSpanCalls === true && part !== undefined && !(part.first && part.last) ? part : undefined;
    try {
      const outcome = await prepared.commit(job.id, progress, stale, origin.part);
      await this.deps.outbox.append(outcome.events);
      await this.deps.dataQuality.open(outcome.dataQuality, job.id);
      const { created, updated, unchanged, removed } = outcome.counts;
      const result: ImportResult = {
        jobId: job.id,
        dataType,
        received: prepared.received,
        created,
        updated,
        unchanged,
        removed,
      };
      if (fileCalls === undefined) await stale.settle(created + updated + removed !== 0);
      else if (fileCalls.last) await stale.settleJob();
      if (origin.part !== undefined && !origin.part.last) {
        await this.deps.jobs.put({
          ...job,
          counts: countsNow(outcome.counts),
          leaseUntil: leaseFrom(this.deps.clock.now()),
        });
        return result;
      }
      const completed: Job = {
        ...job,
        status: "completed",
        counts: countsNow(outcome.counts),
        completedAt: this.deps.clock.now().toISOString(),
        leaseUntil: null,
      };
      await this.deps.jobs.put(completed);
      await this.deps.outbox.append([jobEvent(completed)]);
      return result;
    } catch (error) {
      const accepted = prior + acceptedOf(written);
      const failed: Job = {
        ...job,
        status: "failed",
        counts: countsNow(written),
        errors: [
          {
            field: "",
            message: `the import stopped on an internal error after storing ${accepted} of ${prepared.received} records; retry it (writes are idempotent)`,
          },
        ],
        completedAt: this.deps.clock.now().toISOString(),
        leaseUntil: null,
      };
      await this.deps.jobs.put(failed).catch(() => undefined);
      await (fileCalls === undefined ? stale.abandon() : stale.settleJob()).catch(() => undefined);
      await this.deps.outbox.append([jobEvent(failed)]).catch(() => undefined);
      if (accepted === 0 || error instanceof AppError) throw error;
      // Records are stored: this is not an unexplained 500 but a partial import the client can finish
      // by sending it again; the cause is still logged with the response.
      throw new AppError(
        "SERVICE_UNAVAILABLE",
        `The import stopped after storing ${accepted} of ${prepared.received} records; job ${job.id} records what was stored. Retry it (writes are idempotent)`,
        {
          cause: error,
          headers: { "Retry-After": "1" },
        },
      );
    }
  }

  private prepare(request: ImportRequest): Promise<PreparedImport> {
    const problems = new Problems();
    const { deps } = this;
    const references = new ReferenceResolver(deps.portfolios, deps.securities);
    // Checked records were parsed by the schema of the request's data type (the cast says no more).
    const records = <T extends DataType>(dataType: T): readonly (RecordOf<T> | undefined)[] =>
      "checked" in request
        ? (request.checked as readonly RecordOf<T>[])
        : parseRecords(dataType, request.body, problems);
    switch (request.dataType) {
      case "prices":
        return preparePrices(records("prices"), problems, {
          prices: deps.prices,
          positions: deps.positions,
          references,
          clock: deps.clock,
          jumpThreshold: deps.priceJumpThreshold,
        });
      case "fx-rates":
        return prepareFxRates(records("fx-rates"), problems, {
          fxRates: deps.fxRates,
          positions: deps.positions,
          clock: deps.clock,
        });
      case "securities":
        return prepareSecurities(records("securities"), problems, {
          securities: deps.securities,
          portfolios: deps.portfolios,
          clock: deps.clock,
        });
      case "positions":
        return preparePositions(records("positions"), problems, {
          positions: deps.positions,
          references,
          clock: deps.clock,
        });
      case "transactions":
        return prepareTransactions(records("transactions"), problems, {
          transactions: deps.transactions,
          references,
          clock: deps.clock,
        });
    }
  }
}
