import type { Clock } from "../../../ports/clock";
import type { PositionRepository, SnapshotRef } from "../../../ports/investment-repositories";
import type { MessageBus } from "../../../ports/message-bus";
import type { PortfolioRepository } from "../../../ports/portfolio-repository";
import { enqueueValuations } from "../valuation-queue";
import type { StaleMarks } from "./import-types";

/**
 * An import's stale markers, written in the same path as its data and in this order:
 *
 * 1. `mark` before the data is written: `writing` markers of this import's job (one per portfolio-date
 *    and job, so imports running at once never overwrite each other's), then the portfolios' pending
 *    flag. Positions mark exactly the snapshots that differ; prices and FX rates mark every snapshot
 *    their records can value (what they change is only known once the write has compared each record
 *    with the stored one) — for prices, only on the dates a price can be chosen on (`priceReach`: not
 *    past a newer stored price of its type, so a backfill of old history revalues nothing). The consumer leaves a writing marker alone while its job runs on a live
 *    lease (it would read half-written data); once the job has ended (failed) or its lease has passed
 *    (the process died), it is valued like any other. So a crash after this costs at most a harmless
 *    revaluation, and a retried import that finds its records already stored ("unchanged") cannot lose
 *    the revaluation the failed attempt owed: the old "a retried import never revalues" bug.
 * 2. `settle` after the write. Something changed: ready markers (`stale|<date>`, re-written with a new
 *    etag so a valuation that read the old data does not clear them), then this job's writing markers
 *    go. Nothing changed: only this job's writing markers go (and the flag, where no marker remains).
 * 3. Messages for the portfolios that still have markers, a few portfolios per message. A lost message
 *    leaves its markers for the sweep.
 *
 * A file whose snapshots its calls build together (positions) settles only at its last call
 * (`settleJob`): the earlier calls' writing markers wait, so no snapshot is valued half-written.
 */
export class StaleMarking implements StaleMarks {
  private readonly refs = new Map<string, SnapshotRef>();

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
    // Markers first, then the portfolios' flag (valuationStatus pending): see clearValuationPending. The
    // portfolios are read while the markers are written; their flags are written once the markers are.
    const markers = this.positions.markStale(refs, this.marking(true));
    await Promise.all([
      markers,
      this.portfolios.markValuationPending([...new Set(refs.map((r) => r.portfolioId))], markers),
    ]);
  }

  /** After the data is stored: mark ready (changed) or only drop this import's writing markers (unchanged), then send. */
  async settle(changed: boolean): Promise<void> {
    if (this.refs.size === 0) return;
    const refs = [...this.refs.values()];
    if (changed) {
      await this.release(refs);
      return;
    }
    await this.positions.dropWriting(refs, this.jobId);
    const ids = [...new Set(refs.map((r) => r.portfolioId))];
    const stale = await this.positions.stalePortfolios(ids);
    await this.portfolios.clearValuationPending(
      ids.filter((id) => !stale.has(id)),
      (candidates) => this.positions.stalePortfolios(candidates),
    );
    // Markers an earlier, failed attempt (or another import) left: valued now rather than at the next sweep.
    await enqueueValuations(this.bus, [...stale], this.delaySeconds);
  }

  /**
   * A file's last call (or a call that failed, ending the file): every writing marker the job's calls
   * left, its own and those its earlier calls kept waiting, becomes ready and is sent.
   */
  async settleJob(): Promise<void> {
    const refs = new Map(this.refs);
    for (const r of await this.positions.writingRefs(this.jobId)) refs.set(`${r.portfolioId}|${r.date}`, r);
    await this.release([...refs.values()]);
  }

  /** The import failed after marking: whatever it stored is valued now (best effort; the sweep is the backstop). */
  async abandon(): Promise<void> {
    await this.release([...this.refs.values()]);
  }

  private async release(refs: readonly SnapshotRef[]): Promise<void> {
    if (refs.length === 0) return;
    await this.positions.markStale(refs, this.marking(false));
    await this.positions.dropWriting(refs, this.jobId);
    await enqueueValuations(
      this.bus,
      refs.map((r) => r.portfolioId),
      this.delaySeconds,
    );
  }

  private marking(writing: boolean): { markedAt: string; jobId: string; writing: boolean } {
    return { markedAt: this.clock.now().toISOString(), jobId: this.jobId, writing };
  }
}
