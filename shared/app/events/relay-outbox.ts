import { resendEntries, type ResendDeps } from "./resend-entries";

export type RelayOutboxDeps = ResendDeps;

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
    return resendEntries(this.deps, (before, limit) => this.deps.outbox.unpublished(before, limit));
  }
}
