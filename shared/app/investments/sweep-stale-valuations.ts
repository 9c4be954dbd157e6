import { z } from "zod";
import type { Clock } from "../../ports/clock";
import type { PositionRepository } from "../../ports/investment-repositories";
import type { MessageBus } from "../../ports/message-bus";
import type { PortfolioRepository } from "../../ports/portfolio-repository";

/**
 * A `valuations` message names portfolios whose stale markers to work off. It carries no dates: the
 * markers are the durable truth, so a repeated or late message costs a read, never a wrong value.
 */
export const valuationMessageSchema = z.strictObject({ portfolioIds: z.array(z.string().min(1).max(200)).min(1).max(100) });
export type ValuationMessage = z.infer<typeof valuationMessageSchema>;

/**
 * Portfolios per message: an FX import that makes 1,000 portfolios stale sends 40 messages (one HTTP
 * send each on storage queues, so this is most of the import's own cost), and a message's work stays
 * bounded (25 portfolios, up to DATES_PER_RUN dates each), so the consumer's instances and concurrent
 * calls share a big catch-up.
 */
export const PORTFOLIOS_PER_MESSAGE = 25;

/** Asks the valuations queue to value these portfolios' stale markers (one message per few portfolios). */
export async function enqueueValuations(bus: MessageBus, portfolioIds: Iterable<string>, delaySeconds = 0): Promise<void> {
  const ids = [...new Set(portfolioIds)];
  if (ids.length === 0) return;
  const messages = [];
  for (let i = 0; i < ids.length; i += PORTFOLIOS_PER_MESSAGE) {
    messages.push({ body: { portfolioIds: ids.slice(i, i + PORTFOLIOS_PER_MESSAGE) } satisfies ValuationMessage, ...(delaySeconds > 0 ? { delaySeconds } : {}) });
  }
  await bus.send("valuations", messages);
}

/**
 * Re-enqueues portfolios whose markers are older than `ageSeconds`: their message was lost (a crash
 * between marking and sending) or the queue gave up on it. A marker still being worked off may be sent
 * again; the consumer then finds it cleared, or values it once more (versioned, so harmlessly).
 */
export class SweepStaleValuations {
  constructor(
    private readonly positions: PositionRepository,
    private readonly portfolios: PortfolioRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly ageSeconds: number,
    private readonly limit = 5000,
  ) {}

  async run(): Promise<string[]> {
    const before = new Date(this.clock.now().getTime() - this.ageSeconds * 1000).toISOString();
    const portfolioIds = new Set(await this.positions.portfoliosStaleSince(before, this.limit));
    // A portfolio left flagged pending with no marker at all (a crash between clearing its last marker
    // and its flag): the consumer finds nothing to value and clears the flag.
    const flagged = await this.portfolios.pendingValuations(this.limit);
    const withMarkers = await this.positions.stalePortfolios(flagged);
    for (const id of flagged) if (!withMarkers.has(id)) portfolioIds.add(id);
    await enqueueValuations(this.bus, portfolioIds);
    return [...portfolioIds];
  }
}
