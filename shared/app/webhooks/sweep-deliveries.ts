import type { Clock } from "../../ports/clock";
import type { DeliveryRepository } from "../../ports/delivery-repository";
import type { MessageBus } from "../../ports/message-bus";
import { deliveriesMessages } from "./deliveries-message";

export interface SweepDeliveriesDeps {
  deliveries: DeliveryRepository;
  bus: MessageBus;
  clock: Clock;
  /** DELIVERIES_SWEEP_GRACE_SECONDS: how late a pending delivery may be before it counts as lost. */
  graceSeconds: number;
}

/** Overdue deliveries read (and re-enqueued) per page. */
const PAGE_SIZE = 500;
/** Pages per run: one run re-enqueues up to 20,000 (a queue that was away for a while); the next run takes the rest. */
const MAX_PAGES = 40;

/**
 * Re-enqueues pending deliveries whose next attempt is overdue by more than the grace period: their
 * message was lost, or the process ended between writing the outcome and sending the retry message.
 * Each message names the due time it is for, so a copy that races a late original is harmless: the
 * first attempt moves the due time on, and the other copy is then stale.
 */
export class SweepDeliveries {
  constructor(private readonly deps: SweepDeliveriesDeps) {}

  /** Returns how many deliveries were re-enqueued. */
  async execute(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - this.deps.graceSeconds * 1000).toISOString();
    let count = 0;
    let pages = 0;
    for await (const page of this.deps.deliveries.overdue(before, PAGE_SIZE)) {
      await this.deps.bus.send(
        "deliveries",
        deliveriesMessages(page.map(({ webhookId, id, nextAttemptAt }) => ({ webhookId, id, due: nextAttemptAt }))),
      );
      count += page.length;
      if (++pages >= MAX_PAGES) break;
    }
    return count;
  }
}
