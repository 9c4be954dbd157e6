import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox } from "../../ports/outbox";
import { eventMessages } from "./event-publisher";

export interface RelayOptions {
  /** Entries younger than this are left to the publisher that appended them (it may still be sending). */
  graceSeconds: number;
  batchSize: number;
  /** Batches per run, so one run stays bounded however much piled up while the bus was away. */
  maxBatches: number;
}

/**
 * Publishes outbox entries that never reached the bus (the process died, or the bus refused, between
 * the data write and the publish), oldest first, and marks them published. A failing send throws:
 * the entries stay pending and the next run tries again.
 */
export class RelayOutbox {
  constructor(
    private readonly outbox: Outbox,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly options: RelayOptions,
  ) {}

  /** Returns the ids it published. */
  async run(): Promise<string[]> {
    const published: string[] = [];
    const before = new Date(this.clock.now().getTime() - this.options.graceSeconds * 1000).toISOString();
    for (let batch = 0; batch < this.options.maxBatches; batch++) {
      const pending = await this.outbox.unpublished(before, this.options.batchSize);
      if (pending.length === 0) break;
      await this.bus.send("events", eventMessages(pending));
      const ids = pending.map((e) => e.id);
      await this.outbox.markPublished(ids);
      published.push(...ids);
      if (pending.length < this.options.batchSize) break;
    }
    return published;
  }
}
