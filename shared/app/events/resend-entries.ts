import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox, PendingEvent } from "../../ports/outbox";
import { eventMessages } from "./event-messages";

export interface ResendDeps {
  outbox: Outbox;
  bus: MessageBus;
  clock: Clock;
  /** Entries younger than this are left alone: what handles them may still be at work. */
  graceSeconds: number;
  batchSize: number;
  /** Batches per run, so one run stays bounded however much piled up. */
  maxBatches: number;
}

/**
 * Sends the outbox entries `due` finds (older than the grace period, oldest first) to the events
 * queue, batch by batch, marking each batch published once sent. A failing send throws: the batch
 * stays as it was and the next run tries again. Returns the ids it sent.
 */
export async function resendEntries(
  deps: ResendDeps,
  due: (before: string, limit: number) => Promise<PendingEvent[]>,
): Promise<string[]> {
  const { outbox, bus, clock, graceSeconds, batchSize, maxBatches } = deps;
  const sent: string[] = [];
  const before = new Date(clock.now().getTime() - graceSeconds * 1000).toISOString();
  for (let batch = 0; batch < maxBatches; batch++) {
    const entries = await due(before, batchSize);
    if (entries.length === 0) break;
    await bus.send("events", eventMessages(entries));
    const ids = entries.map((e) => e.id);
    await outbox.markPublished(ids);
    sent.push(...ids);
    if (entries.length < batchSize) break;
  }
  return sent;
}
