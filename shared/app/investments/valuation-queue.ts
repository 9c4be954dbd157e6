import { z } from "zod";
import type { MessageBus } from "../../ports/message-bus";

/**
 * A `valuations` message names portfolios whose stale markers to work off. It carries no dates: the
 * markers are the durable truth, so a repeated or late message costs a read, never a wrong value.
 */
export const valuationMessageSchema = z.strictObject({
  portfolioIds: z.array(z.string().min(1).max(200)).min(1).max(100),
});
export type ValuationMessage = z.infer<typeof valuationMessageSchema>;

/**
 * Portfolios per message: an FX import that makes 1,000 portfolios stale sends 40 messages (one HTTP
 * send each on storage queues, so this is most of the import's own cost), and a message's work stays
 * bounded (25 portfolios, up to DATES_PER_RUN dates each), so the consumer's instances and concurrent
 * calls share a big catch-up.
 */
export const PORTFOLIOS_PER_MESSAGE = 25;

/** Asks the valuations queue to value these portfolios' stale markers (one message per few portfolios). */
export async function enqueueValuations(
  bus: MessageBus,
  portfolioIds: Iterable<string>,
  delaySeconds = 0,
): Promise<void> {
  const ids = [...new Set(portfolioIds)];
  if (ids.length === 0) return;
  const messages = [];
  for (let i = 0; i < ids.length; i += PORTFOLIOS_PER_MESSAGE) {
    messages.push({
      body: { portfolioIds: ids.slice(i, i + PORTFOLIOS_PER_MESSAGE) } satisfies ValuationMessage,
      ...(delaySeconds > 0 ? { delaySeconds } : {}),
    });
  }
  await bus.send("valuations", messages);
}
