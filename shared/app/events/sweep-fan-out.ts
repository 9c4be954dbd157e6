import type { Clock } from "../../ports/clock";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox } from "../../ports/outbox";
import { eventMessages } from "./event-messages";

export interface SweepFanOutDeps {
  outbox: Outbox;
  bus: MessageBus;
  clock: Clock;
  /** Entries sent less than this long ago may still be on their way through the fan-out. */
  graceSeconds: number;
  batchSize: number;
  /** Batches per run, so one run stays bounded. */
  maxBatches: number;
}

/**
 * Sends again, oldest first, the events the relay sent (published) whose fan-out has still not
 * completed: that message too was lost, or the fan-out keeps failing. The fan-out is idempotent (a
 * delivery's id derives from event and webhook, and what is recorded is not sent again), so a copy that
 * races a slow original costs a read, not a second POST within an instance. Each is marked as sent now,
 * so it is sent again only after another grace period.
 */
export class SweepFanOut {
  constructor(private readonly deps: SweepFanOutDeps) {}

  /** Returns the ids it sent again. */
  async execute(): Promise<string[]> {
    const { outbox, bus, clock, graceSeconds, batchSize, maxBatches } = this.deps;
    const sent: string[] = [];
    const before = new Date(clock.now().getTime() - graceSeconds * 1000).toISOString();
    for (let batch = 0; batch < maxBatches; batch++) {
      const due = await outbox.notFannedOut(before, batchSize);
      if (due.length === 0) break;
      await bus.send("events", eventMessages(due));
      const ids = due.map((e) => e.id);
      await outbox.markPublished(ids);
      sent.push(...ids);
      if (due.length < batchSize) break;
    }
    return sent;
  }
}
