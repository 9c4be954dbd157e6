import type { MessageBus } from "../../ports/message-bus";
import type { InvestmentDeps } from "./investment-deps";
import { enqueueValuations } from "./valuation-queue";

export interface SweepStaleValuationsDeps extends Pick<InvestmentDeps, "positions" | "portfolios" | "clock"> {
  bus: MessageBus;
  /** Markers older than this are re-enqueued (VALUATION_SWEEP_AGE_SECONDS). */
  ageSeconds: number;
  /** Portfolios per run (default 5,000). */
  limit?: number;
}

/**
 * Re-enqueues portfolios whose markers are older than `ageSeconds`: their message was lost (a crash
 * between marking and sending) or the queue gave up on it. A marker still being worked off may be sent
 * again; the consumer then finds it cleared, or values it once more (versioned, so harmlessly).
 */
export class SweepStaleValuations {
  constructor(private readonly deps: SweepStaleValuationsDeps) {}

  /** Returns the ids of the portfolios re-enqueued. */
  async execute(): Promise<string[]> {
    const { positions, portfolios, bus, clock, ageSeconds, limit = 5000 } = this.deps;
    const before = new Date(clock.now().getTime() - ageSeconds * 1000).toISOString();
    const portfolioIds = new Set(await positions.portfoliosStaleSince(before, limit));
    // A portfolio left flagged pending with no marker at all (a crash between clearing its last marker
    // and its flag): the consumer finds nothing to value and clears the flag.
    const flagged = await portfolios.pendingValuations(limit);
    const withMarkers = await positions.stalePortfolios(flagged);
    for (const id of flagged) if (!withMarkers.has(id)) portfolioIds.add(id);
    await enqueueValuations(bus, portfolioIds);
    return [...portfolioIds];
  }
}
