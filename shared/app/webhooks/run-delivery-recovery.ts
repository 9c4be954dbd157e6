import { reopened } from "../../domain/delivery";
import { deliveryOrder, type DeliveryRecovery } from "../../domain/delivery-recovery";
import type { DeliveryRecoveries } from "../../ports/delivery-recoveries";
import { recoveryMessage, type RecoveryMessage } from "./deliveries-message";
import type { DeliveryLogDeps } from "./delivery-log";

export interface RunDeliveryRecoveryDeps extends Pick<
  DeliveryLogDeps,
  "deliveries" | "directory" | "attempts" | "bus" | "clock"
> {
  recoveries: DeliveryRecoveries;
}

/** Deliveries one step reads; a step also ends after STEP_MS of sending, so it stays well inside its lease. */
const STEP_SIZE = 25;
const STEP_MS = 20_000;
/** How long a step holds the recovery: its sending time plus one POST's 15 s, with room to spare. */
const LEASE_MS = 60_000;

/**
 * One step of a webhook's recovery: takes the step (a lease, so a second copy of the message waits),
 * sends the next failed deliveries one at a time in the order they were created — each made pending
 * with a fresh retry schedule and attempted as a retry is, with its own webhook-id — then records how
 * far it got and queues the next step. A crash mid-step makes the message come back (or the sweep
 * re-send it): a delivery already sent again is no longer failed, so only one in flight at the crash is
 * sent twice. A delivery that fails again after the recovery began is not taken up again (`until`).
 */
export class RunDeliveryRecovery {
  constructor(private readonly deps: RunDeliveryRecoveryDeps) {}

  async execute({ webhookId, step }: RecoveryMessage["recovery"]): Promise<void> {
    const stored = await this.deps.recoveries.get(webhookId);
    if (stored === undefined || stored.status !== "running" || stored.step !== step) return; // stale copy
    const started = this.deps.clock.now();
    if (stored.leaseUntil !== undefined && stored.leaseUntil > started.toISOString()) return; // another copy has it
    const { _etag, ...recovery } = stored;
    const taken: DeliveryRecovery = {
      ...recovery,
      leaseUntil: new Date(started.getTime() + LEASE_MS).toISOString(),
      updatedAt: started.toISOString(),
    };
    let etag = await this.deps.recoveries.replaceIfUnchanged(taken, _etag ?? "");
    if (etag === undefined) return;

    const target = await this.deps.directory.target(webhookId);
    if (target === undefined || target.status !== "enabled") {
      const stoppedReason = target === undefined ? "the webhook was deleted" : "the webhook was disabled";
      await this.finish(taken, etag, { stoppedReason });
      return;
    }
    const batch = await this.deps.deliveries.failedBetween(
      webhookId,
      { since: recovery.since, until: recovery.until },
      recovery.after,
      STEP_SIZE,
    );
    let { after, sent } = recovery;
    let stoppedEarly = false;
    for (const { _etag: deliveryEtag, ...delivery } of batch) {
      if (this.deps.clock.now().getTime() - started.getTime() > STEP_MS) {
        stoppedEarly = true;
        break;
      }
      // One at a time, in order: each POST after the previous one's outcome is recorded. One that this
      // instance is attempting already (held) is on its way: passed over.
      await this.deps.attempts.exclusively([delivery], async (held) => {
        if (held.length === 0) return;
        await this.deps.attempts.attempt([
          { delivery: reopened(delivery, this.deps.clock.now()), etag: deliveryEtag ?? "", target },
        ]);
        sent++;
      });
      after = deliveryOrder(delivery);
    }
    const more = stoppedEarly || batch.length === STEP_SIZE;
    const now = this.deps.clock.now().toISOString();
    const { leaseUntil: _l, ...released } = taken;
    const next: DeliveryRecovery = { ...released, after, sent, step: step + 1, updatedAt: now };
    if (more) {
      etag = await this.deps.recoveries.replaceIfUnchanged(next, etag);
      // Lost: the lease ran out and another copy took the step; it goes on from there.
      if (etag !== undefined) await this.deps.bus.send("deliveries", [recoveryMessage(webhookId, step + 1)]);
    } else await this.finish(next, etag, {});
  }

  private async finish(recovery: DeliveryRecovery, etag: string, why: { stoppedReason?: string }): Promise<void> {
    const { leaseUntil: _l, ...rest } = recovery;
    const now = this.deps.clock.now().toISOString();
    await this.deps.recoveries.replaceIfUnchanged(
      { ...rest, ...why, status: "done", updatedAt: now, completedAt: now },
      etag,
    );
  }
}
