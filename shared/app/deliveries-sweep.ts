import type { Clock } from "../ports/clock";
import type { DeliveryRepository } from "../ports/delivery-repository";
import type { MessageBus } from "../ports/message-bus";
import { deliveriesMessages } from "./deliver-webhook";

/** Deliveries re-enqueued per run; the next run takes the rest. */
const SWEEP_LIMIT = 500;

/**
 * Re-enqueues pending deliveries whose next attempt is overdue by more than the grace period: their
 * message was lost, or the process ended between writing the due time and sending the message, or
 * mid-attempt (the claim then lapses). A copy that races a late message is harmless: the attempt is
 * claimed with a conditional write.
 */
export class SweepDeliveries {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly graceSeconds: number,
  ) {}

  /** Returns how many deliveries were re-enqueued. */
  async run(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - this.graceSeconds * 1000).toISOString();
    const refs = await this.deliveries.overdue(before, SWEEP_LIMIT);
    if (refs.length > 0) await this.bus.send("deliveries", deliveriesMessages(refs));
    return refs.length;
  }
}
