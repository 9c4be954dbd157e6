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

/** Portfolio-dates valued together: their inputs read in one go, their results stored in one go. */
const VALUED_TOGETHER = 25;

/**
 * The `valuations` consumer: values each stale portfolio-date named by its markers, marks the composites
 * that contain a valued member stale for the dates it changes, and clears each marker only if it is
 * still the version read (a marker re-written meanwhile, by an import that stored newer data, stays).
 * A message's portfolios are valued together, a few store calls for all of them. When that fails, each
 * portfolio is tried on its own, so one that cannot be valued does not hold up the others; any failure
 * is then thrown after the others were done, so the queue retries the message. The markers of what
 * failed remain, so even a message the queue gives up on is swept up later.
 */
export class ValueStalePortfolios {
  /** Per portfolio, the run in progress in this process (see serially). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly deps: ValueStalePortfoliosDeps) {}

  async execute({ portfolioIds }: { portfolioIds: readonly string[] }): Promise<void> {
    const ids = [...new Set(portfolioIds)];
    // Read once per message, not per portfolio: the portfolios (their type, currency and members do not
    // change) and the composites containing any of them (a query across all portfolios).
    const [portfolios, composites] = await Promise.all([
      this.deps.portfolios.getMany(ids),
      this.deps.portfolios.compositesContaining(ids),
    ]);
    await this.serially(ids, async () => {
      try {
        await this.valueTogether(ids, portfolios, composites);
        return;
      } catch (error) {
        if (ids.length === 1) throw error;
      }
      const failures: unknown[] = [];
      await mapConcurrent(ids, PORTFOLIOS_AT_ONCE, async (id) => {
        try {
          await this.valueTogether([id], portfolios, composites);
        } catch (error) {
          failures.push(error);
        }
      });
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1)
        throw new AggregateError(failures, `valuing ${failures.length} of ${ids.length} portfolios failed`);
    });
  }

  /**
   * One run per portfolio at a time in this process: messages for the same portfolio handled at once
   * (the queue host runs many) would each value the same markers. A later run starts once the earlier
   * runs of all its portfolios are over, and finds their markers cleared unless re-written meanwhile.
   */
  private serially(portfolioIds: readonly string[], task: () => Promise<void>): Promise<void> {
    const earlier = portfolioIds.map((id) => (this.inFlight.get(id) ?? Promise.resolve()).catch(() => undefined));
    const run = Promise.all(earlier).then(task);
    for (const id of portfolioIds) this.inFlight.set(id, run);
    const forget = (): void => {
      for (const id of portfolioIds) if (this.inFlight.get(id) === run) this.inFlight.delete(id);
    };
    run.then(forget, forget);
    return run;
  }

  private async valueTogether(
    portfolioIds: readonly string[],
    portfolios: ReadonlyMap<string, Portfolio>,
    composites: readonly Portfolio[],
  ): Promise<void> {
    const datesPerRun = this.deps.datesPerRun ?? DATES_PER_RUN;
    const found = new Map<string, StaleMarker[]>();
    await mapConcurrent(portfolioIds, VALUED_TOGETHER, async (id) => {
      found.set(id, await this.deps.positions.staleMarkers(id, datesPerRun));
    });
    const markers = await this.ready([...found.values()].flat());
    const done: StaleMarker[] = [];
    const valued: SnapshotRef[] = [];
    // A date can have a ready marker and the writing markers of ended imports: valued once, all cleared.
    const byRef = new Map<string, { portfolio: Portfolio; date: string; markers: StaleMarker[] }>();
    for (const m of markers) {
      const portfolio = portfolios.get(m.portfolioId);
      // A portfolio that is gone has nothing to value: its markers are only cleared.
      if (portfolio === undefined) done.push(m);
      else {
        const key = `${m.portfolioId}|${m.date}`;
        const same = byRef.get(key) ?? { portfolio, date: m.date, markers: [] };
        same.markers.push(m);
        byRef.set(key, same);
      }
    }
    const requests = [...byRef.values()].map((r) => ({
      ...r,
      jobId: r.markers.find((m) => m.jobId !== null)?.jobId ?? null,
    }));
    const standard = requests.filter((r) => r.portfolio.type !== "composite");
    for (let i = 0; i < standard.length; i += VALUED_TOGETHER) {
      const slice = standard.slice(i, i + VALUED_TOGETHER);
      const results = await this.deps.valuation.valueMany(slice);
      slice.forEach((r, j) => {
        if (results[j] !== undefined) valued.push({ portfolioId: r.portfolio.id, date: r.date });
        done.push(...r.markers);
      });
    }
    // A composite is valued from its members' snapshots, one date after another.
    for (const r of requests.filter((x) => x.portfolio.type === "composite")) {
      await this.deps.valuation.valueOn(r.portfolio, r.date, r.jobId);
      done.push(...r.markers);
    }
    // Composites are marked before the members' markers go: a crash in between costs a repeated
    // valuation, never a composite left on its members' old values.
    const stale = await this.deps.valuation.compositesStaleAfter(valued, composites);
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
    // More stale dates than one slice: the rest in a message of their own.
    const more = portfolioIds.filter((id) => (found.get(id)?.length ?? 0) >= datesPerRun);
    if (more.length > 0) await enqueueValuations(this.deps.bus, more);
    // The others are current unless a marker remains (an import still writing, or one re-marked meanwhile).
    await this.deps.portfolios.clearValuationPending(
      portfolioIds.filter((id) => !more.includes(id)),
      (ids) => this.deps.positions.stalePortfolios(ids),
    );
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
