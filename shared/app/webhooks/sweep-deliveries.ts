import type { Clock } from "../../ports/clock";
import type { DeliveryRecoveries } from "../../ports/delivery-recoveries";
import type { DeliveryRepository } from "../../ports/delivery-repository";
import type { MessageBus } from "../../ports/message-bus";
import { deliveriesMessages, recoveryMessage } from "./deliveries-message";

export interface SweepDeliveriesDeps {
  deliveries: DeliveryRepository;
  recoveries: Pick<DeliveryRecoveries, "stalled">;
  bus: MessageBus;
  clock: Clock;
  /** DELIVERIES_SWEEP_GRACE_SECONDS: how late a pending delivery (or a recovery's next step) may be before it counts as lost. */
  graceSeconds: number;
}

/** Overdue deliveries read (and re-enqueued) per page. */
const PAGE_SIZE = 500;
/** Pages per run: one run re-enqueues up to 20,000 (a queue that was away for a while); the next run takes the rest. */
const MAX_PAGES = 40;
/** Stalled recoveries taken up per run. */
const MAX_RECOVERIES = 100;

/**
 * Re-enqueues pending deliveries whose next attempt is overdue by more than the grace period: their
 * message was lost, or the process ended between writing the outcome and sending the retry message.
 * Each message names the due time it is for, so a copy that races a late original is harmless: the
 * first attempt moves the due time on, and the other copy is then stale. Likewise a recovery whose
 * step has not moved for the grace period (and is not held by a live step) gets its step's message again.
 */
export class SweepDeliveries {
  constructor(private readonly deps: SweepDeliveriesDeps) {}

  /** Returns how many deliveries, and how many recoveries, were re-enqueued. */
  async execute(): Promise<{ deliveries: number; recoveries: number }> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - this.deps.graceSeconds * 1000).toISOString();
    let deliveries = 0;
    let pages = 0;
    for await (const page of this.deps.deliveries.overdue(before, PAGE_SIZE)) {
      await this.deps.bus.send(
        "deliveries",
        deliveriesMessages(page.map(({ webhookId, id, nextAttemptAt }) => ({ webhookId, id, due: nextAttemptAt }))),
      );
      deliveries += page.length;
      if (++pages >= MAX_PAGES) break;
    }
    const stalled = (await this.deps.recoveries.stalled(before, MAX_RECOVERIES)).filter(
      (r) => r.leaseUntil === undefined || r.leaseUntil <= now.toISOString(),
    );
    if (stalled.length > 0)
      await this.deps.bus.send(
        "deliveries",
        stalled.map((r) => recoveryMessage(r.webhookId, r.step)),
      );
    return { deliveries, recoveries: stalled.length };
  }
}
