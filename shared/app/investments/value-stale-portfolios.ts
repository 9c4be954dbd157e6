import { mapConcurrent } from "../../domain/concurrency";
import type { Portfolio } from "../../domain/portfolio";
import type { SnapshotRef, StaleMarker } from "../../ports/investment-repositories";
import type { MessageBus } from "../../ports/message-bus";
import type { InvestmentDeps } from "./investment-deps";
import type { ValuationService } from "./valuation-service";
import { enqueueValuations } from "./valuation-queue";

/**
 * Dates valued per portfolio per message: a message's work stays bounded; a portfolio with more stale
 * dates (an FX backfill over years) is sent on in a new message after each slice.
 */
export const DATES_PER_RUN = 50;
const PORTFOLIOS_AT_ONCE = 5;

export interface ValueStalePortfoliosDeps extends Pick<InvestmentDeps, "portfolios" | "positions" | "jobs" | "clock"> {
  valuation: ValuationService;
  bus: MessageBus;
  /** Dates valued per portfolio per message (default DATES_PER_RUN). */
  datesPerRun?: number;
}

/**
 * The `valuations` consumer: values each stale portfolio-date named by its markers, marks the composites
 * that contain a valued member stale for the dates it changes, and clears each marker only if it is
 * still the version read (a marker re-written meanwhile, by an import that stored newer data, stays).
 * Any failure is thrown after the other portfolios were done, so the queue retries the message; the
 * markers of what failed remain, so even a message the queue gives up on is swept up later.
 */
export class ValueStalePortfolios {
  /** Per portfolio, the run in progress in this process (see serially). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly deps: ValueStalePortfoliosDeps) {}

  async execute({ portfolioIds }: { portfolioIds: readonly string[] }): Promise<void> {
    const failures: unknown[] = [];
    const ids = [...new Set(portfolioIds)];
    // Read once per message, not per portfolio: the portfolios (their type, currency and members do not
    // change) and the composites containing any of them (a query across all portfolios).
    const [portfolios, composites] = await Promise.all([
      this.deps.portfolios.getMany(ids),
      this.deps.portfolios.compositesContaining(ids),
    ]);
    // A few portfolios of the message at once: each valuation is a chain of store round trips.
    await mapConcurrent(ids, PORTFOLIOS_AT_ONCE, async (id) => {
      try {
        await this.serially(id, () => this.valuePortfolio(id, portfolios.get(id), composites));
      } catch (error) {
        failures.push(error);
      }
    });
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1)
      throw new AggregateError(failures, `valuing ${failures.length} of ${portfolioIds.length} portfolios failed`);
  }

  /**
   * One run per portfolio at a time in this process: messages for the same portfolio handled at once
   * (the queue host runs many) would each value the same markers. The later run starts once the
   * earlier one is over and finds its markers cleared, unless they were re-written meanwhile.
   */
  private serially(portfolioId: string, task: () => Promise<void>): Promise<void> {
    const run = (this.inFlight.get(portfolioId) ?? Promise.resolve()).catch(() => undefined).then(task);
    this.inFlight.set(portfolioId, run);
    const forget = (): void => {
      if (this.inFlight.get(portfolioId) === run) this.inFlight.delete(portfolioId);
    };
    run.then(forget, forget);
    return run;
  }

  private async valuePortfolio(
    portfolioId: string,
    portfolio: Portfolio | undefined,
    composites: readonly Portfolio[],
  ): Promise<void> {
    const datesPerRun = this.deps.datesPerRun ?? DATES_PER_RUN;
    const found = await this.deps.positions.staleMarkers(portfolioId, datesPerRun);
    const markers = await this.ready(found);
    if (markers.length === 0) {
      // Nothing (left) to value: the portfolio is current unless a marker remains (an import still writing).
      await this.deps.portfolios.clearValuationPending(portfolioId, () => this.stillStale(portfolioId));
      return;
    }
    if (portfolio === undefined) {
      await this.deps.positions.clearStale(markers);
      return;
    }
    const done: StaleMarker[] = [];
    const valued: SnapshotRef[] = [];
    let failure: { error: unknown } | undefined;
    // A date can have a ready marker and the writing markers of ended imports: valued once, all cleared.
    const byDate = new Map<string, StaleMarker[]>();
    for (const m of markers) byDate.set(m.date, [...(byDate.get(m.date) ?? []), m]);
    for (const [date, same] of byDate) {
      try {
        const valuation = await this.deps.valuation.valueOn(
          portfolio,
          date,
          same.find((m) => m.jobId !== null)?.jobId ?? null,
        );
        if (valuation !== undefined) valued.push({ portfolioId, date });
        done.push(...same);
      } catch (error) {
        failure = { error };
        break;
      }
    }
    // Composites are marked before the member's markers go: a crash in between costs a repeated
    // valuation, never a composite left on its members' old values.
    const stale =
      portfolio.type === "composite" ? [] : await this.deps.valuation.compositesStaleAfter(valued, composites);
    if (stale.length > 0) {
      await this.deps.positions.markStale(stale, {
        markedAt: this.deps.clock.now().toISOString(),
        jobId: done.find((m) => m.jobId !== null)?.jobId ?? null,
        writing: false,
      });
      await this.deps.portfolios.markValuationPending([...new Set(stale.map((c) => c.portfolioId))]);
      await enqueueValuations(
        this.deps.bus,
        stale.map((c) => c.portfolioId),
      );
    }
    await this.deps.positions.clearStale(done);
    if (failure !== undefined) throw failure.error;
    // More stale dates than one slice: the rest in a message of its own.
    if (found.length >= datesPerRun) await enqueueValuations(this.deps.bus, [portfolioId]);
    else await this.deps.portfolios.clearValuationPending(portfolioId, () => this.stillStale(portfolioId));
  }

  private async stillStale(portfolioId: string): Promise<boolean> {
    return (await this.deps.positions.stalePortfolios([portfolioId])).has(portfolioId);
  }

  /** Leaves out markers an import wrote before its data while it is still writing (it announces them itself). */
  private async ready(markers: readonly StaleMarker[]): Promise<StaleMarker[]> {
    const jobIds = [...new Set(markers.flatMap((m) => (m.writing && m.jobId !== null ? [m.jobId] : [])))];
    if (jobIds.length === 0) return [...markers];
    const now = this.deps.clock.now().getTime();
    const writing = new Set<string>();
    for (const id of jobIds) {
      const job = await this.deps.jobs.get(id);
      if (job?.status === "running" && Date.parse(job.leaseUntil ?? "") > now) writing.add(id);
    }
    return markers.filter((m) => !(m.writing && m.jobId !== null && writing.has(m.jobId)));
  }
}
