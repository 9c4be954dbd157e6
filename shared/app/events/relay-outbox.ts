import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox } from "../../ports/outbox";
import { eventMessages } from "./event-messages";

export interface RelayOutboxDeps {
  outbox: Outbox;
  bus: MessageBus;
  clock: Clock;
  /** Entries younger than this are left to the publisher that appended them (it may still be sending). */
  graceSeconds: number;
  batchSize: number;
  /** Batches per run, so one run stays bounded however much piled up while the bus was away. */
  maxBatches: number;
}

/**
 * Sends again, oldest first, the outbox entries still pending after the grace period: their fan-out
 * has not recorded them, because their message never reached the bus (the process died, or the bus
 * refused, between the data write and the send), was lost on the way, or died with a process mid
 * fan-out. Marks them published, so that from then on SweepFanOut sends them again only each of its
 * own grace periods. Each event is sent in the trace context stored with it, so its fan-out and webhook
 * deliveries continue the operation that appended it, not the relay's. A failing send throws: the
 * entries stay pending and the next run tries again.
 */
export class RelayOutbox {
  constructor(private readonly deps: RelayOutboxDeps) {}

  /** Returns the ids it published. */
  async execute(): Promise<string[]> {
    const { outbox, bus, clock, graceSeconds, batchSize, maxBatches } = this.deps;
    const published: string[] = [];
    const before = new Date(clock.now().getTime() - graceSeconds * 1000).toISOString();
    for (let batch = 0; batch < maxBatches; batch++) {
      const pending = await outbox.unpublished(before, batchSize);
      if (pending.length === 0) break;
      await bus.send("events", eventMessages(pending));
      const ids = pending.map((e) => e.id);
      await outbox.markPublished(ids);
      published.push(...ids);
      if (pending.length < batchSize) break;
    }
    return published;
  }
}
