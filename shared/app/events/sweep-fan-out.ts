import { resendEntries, type ResendDeps } from "./resend-entries";

export type SweepFanOutDeps = ResendDeps;

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
    return resendEntries(this.deps, (before, limit) => this.deps.outbox.notFannedOut(before, limit));
  }
}
