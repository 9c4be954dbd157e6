import type { Clock } from "../../ports/clock";
import type { PositionRepository, SnapshotRef, StaleMarker } from "../../ports/investment-repositories";
import type { MessageBus } from "../../ports/message-bus";
import type { PortfolioRepository } from "../../ports/portfolio-repository";
import { enqueueValuations } from "../valuation-queue";
import type { StaleMarks } from "./import-types";

/**
 * An import's stale markers, written in the same path as its data and in this order:
 *
 * 1. `mark` before the data is written, as `writing` markers of this import's job: positions mark
 *    exactly the snapshots that differ; prices and FX rates mark every snapshot their records can value
 *    (what they change is only known once the write has compared each record with the stored one). A
 *    crash after this costs at most a harmless revaluation, and a retried import that finds its records
 *    already stored ("unchanged") still finds the markers the failed attempt left: the old "a retried
 *    import never revalues" bug cannot happen. The consumer leaves a `writing` marker alone while its job
 *    runs on a live lease (it would read half-written data and could clear the marker); once the job has
 *    ended or its lease has passed (a crash), the marker is an ordinary one.
 * 2. `settle` after the write. Something changed: every marker is written again as ready (a new etag).
 *    Nothing changed: the markers this import created are removed (conditionally on their etag: re-marked
 *    by another writer meanwhile, they stay) and those it found are made ready again.
 * 3. Messages for the portfolios whose markers remain, a few portfolios per message. A lost message
 *    leaves its markers for the sweep.
 */
export class StaleMarking implements StaleMarks {
  private readonly refs = new Map<string, SnapshotRef>();
  private readonly created: StaleMarker[] = [];

  constructor(
    private readonly portfolios: PortfolioRepository,
    private readonly positions: PositionRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly jobId: string,
    /** How long the messages wait on the queue (VALUATION_DELAY_SECONDS): a burst of imports is valued once. */
    private readonly delaySeconds = 0,
  ) {}

  async mark(refs: readonly SnapshotRef[]): Promise<void> {
    if (refs.length === 0) return;
    for (const r of refs) this.refs.set(`${r.portfolioId}|${r.date}`, { portfolioId: r.portfolioId, date: r.date });
    this.created.push(...(await this.positions.markStale(refs, this.marking(true))));
    // Markers first, then the portfolios' flag (valuationStatus pending): see clearValuationPending.
    await this.portfolios.markValuationPending([...new Set(refs.map((r) => r.portfolioId))]);
  }

  /** After the data is stored: re-mark (changed) or take back this import's own markers (unchanged), then send. */
  async settle(changed: boolean): Promise<void> {
    if (this.refs.size === 0) return;
    let remaining = [...this.refs.values()];
    if (!changed) {
      await this.positions.clearStale(this.created);
      const mine = new Set(this.created.map((m) => `${m.portfolioId}|${m.date}`));
      // Markers an earlier, failed attempt (or another import) left: valued now rather than at the next sweep.
      remaining = remaining.filter((r) => !mine.has(`${r.portfolioId}|${r.date}`));
      const kept = new Set(remaining.map((r) => r.portfolioId));
      for (const id of new Set(this.created.map((m) => m.portfolioId))) {
        if (!kept.has(id)) await this.portfolios.clearValuationPending(id, async () => (await this.positions.stalePortfolios([id])).has(id));
      }
    }
    await this.release(remaining);
  }

  /** The import failed after marking: whatever it stored is valued now (best effort; the sweep is the backstop). */
  async abandon(): Promise<void> {
    await this.release([...this.refs.values()]);
  }

  private async release(refs: readonly SnapshotRef[]): Promise<void> {
    if (refs.length === 0) return;
    await this.positions.remarkStale(refs, this.marking(false));
    await enqueueValuations(this.bus, refs.map((r) => r.portfolioId), this.delaySeconds);
  }

  private marking(writing: boolean): { markedAt: string; jobId: string; writing: boolean } {
    return { markedAt: this.clock.now().toISOString(), jobId: this.jobId, writing };
  }
}
