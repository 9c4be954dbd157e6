import { randomUUID } from "node:crypto";
import { eventIdOf, type EventEnvelope } from "../../domain/events";
import type { DataType, ImportResult } from "../../domain/import-payload";
import type { Job } from "../../domain/job";
import type { Clock } from "../../ports/clock";
import type { FxRateRepository, JobRepository, PositionRepository, PriceRepository, SecurityRepository, TransactionRepository } from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";
import type { PortfolioRepository } from "../../ports/portfolio-repository";
import type { Exceptions } from "../exceptions";
import type { ValuationService } from "../valuation-service";
import { prepareFxRates } from "./import-fx-rates";
import { preparePositions } from "./import-positions";
import { preparePrices } from "./import-prices";
import { prepareSecurities } from "./import-securities";
import { prepareTransactions } from "./import-transactions";
import type { PreparedImport } from "./import-types";
import { ReferenceResolver } from "./references";
import { Problems } from "./validate-payload";

export interface ImportDeps {
  portfolios: PortfolioRepository;
  securities: SecurityRepository;
  prices: PriceRepository;
  fxRates: FxRateRepository;
  positions: PositionRepository;
  transactions: TransactionRepository;
  jobs: JobRepository;
  outbox: Outbox;
  exceptions: Exceptions;
  valuation: ValuationService;
  clock: Clock;
  priceJumpThreshold: number;
}

export interface ImportSource {
  source: Job["source"];
  feedId?: string;
  fileName?: string;
}

/**
 * One import, whatever brought it (REST, SFTP or blob): validate everything, then write by natural
 * key, record the refresh job, append events, open exceptions and revalue what changed.
 */
export class ImportService {
  constructor(private readonly deps: ImportDeps) {}

  async execute(dataType: DataType, body: unknown, origin: ImportSource = { source: "api" }): Promise<ImportResult> {
    const prepared = await this.prepare(dataType, body);
    const job: Job = {
      id: `job_${randomUUID()}`,
      source: origin.source,
      dataType,
      feedId: origin.feedId ?? null,
      fileName: origin.fileName ?? null,
      status: "running",
      counts: { received: prepared.received, accepted: 0, rejected: 0 },
      errors: [],
      startedAt: this.deps.clock.now().toISOString(),
      completedAt: null,
    };
    await this.deps.jobs.put(job);
    try {
      const outcome = await prepared.commit(job.id);
      await this.deps.outbox.append(outcome.events);
      await this.deps.exceptions.open(outcome.exceptions, job.id);
      await this.deps.valuation.revalue(await outcome.affected(), job.id);
      const { created, updated, unchanged } = outcome.counts;
      const completed: Job = { ...job, status: "completed", counts: { ...job.counts, accepted: created + updated + unchanged }, completedAt: this.deps.clock.now().toISOString() };
      await this.deps.jobs.put(completed);
      await this.deps.outbox.append([jobEvent(completed)]);
      return { jobId: job.id, dataType, received: prepared.received, created, updated, unchanged };
    } catch (error) {
      const failed: Job = { ...job, status: "failed", errors: [{ field: "", message: "the import stopped on an internal error; retry it (writes are idempotent)" }], completedAt: this.deps.clock.now().toISOString() };
      await this.deps.jobs.put(failed).catch(() => undefined);
      await this.deps.outbox.append([jobEvent(failed)]).catch(() => undefined);
      throw error;
    }
  }

  private prepare(dataType: DataType, body: unknown): Promise<PreparedImport> {
    const problems = new Problems();
    const { deps } = this;
    const references = new ReferenceResolver(deps.portfolios, deps.securities);
    switch (dataType) {
      case "prices":
        return preparePrices(body, problems, { prices: deps.prices, positions: deps.positions, references, clock: deps.clock, jumpThreshold: deps.priceJumpThreshold });
      case "fx-rates":
        return prepareFxRates(body, problems, { fxRates: deps.fxRates, positions: deps.positions, clock: deps.clock });
      case "securities":
        return prepareSecurities(body, problems, { securities: deps.securities, portfolios: deps.portfolios, clock: deps.clock });
      case "positions":
        return preparePositions(body, problems, { positions: deps.positions, references, clock: deps.clock });
      case "transactions":
        return prepareTransactions(body, problems, { transactions: deps.transactions, references, clock: deps.clock });
    }
  }
}

function jobEvent(job: Job): EventEnvelope {
  const event = job.status === "failed" ? "refresh_job.failed" : "refresh_job.completed";
  return {
    id: eventIdOf(event, job.id),
    event,
    timestamp: job.completedAt ?? job.startedAt,
    data: {
      jobId: job.id,
      source: job.source,
      dataType: job.dataType,
      ...(job.fileName !== null ? { fileName: job.fileName } : {}),
      counts: job.counts,
      startedAt: job.startedAt,
      completedAt: job.completedAt,
      ...(job.status === "failed" ? { error: job.errors[0]?.message ?? "failed" } : {}),
    },
  };
}
