import { newDelivery, type DeliveryRef } from "../domain/delivery";
import type { EventEnvelope } from "../domain/events";
import type { Clock } from "../ports/clock";
import type { DeliveryRepository } from "../ports/delivery-repository";
import type { MessageBus } from "../ports/message-bus";
import type { WebhookDirectory } from "../ports/webhook-delivery";
import { mapConcurrent } from "../domain/concurrency";
import type { DeliveriesMessage } from "./deliver-webhook";

/** Refs per `deliveries` message: one message carries an event to many webhooks. */
const REFS_PER_MESSAGE = 32;

/**
 * Turns one event into a delivery per enabled webhook subscribed to it. Idempotent by event id: the
 * delivery id derives from (event, webhook) and is created only if absent, so a repeated event message
 * creates nothing new; every delivery is enqueued again all the same (the previous run may have ended
 * between the record and the message), and the delivery function skips what is no longer pending.
 */
export class FanOutEvents {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly directory: WebhookDirectory,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
  ) {}

  /** Returns the deliveries the events map to. */
  async run(events: readonly EventEnvelope[]): Promise<DeliveryRef[]> {
    const now = this.clock.now();
    const refs: DeliveryRef[] = [];
    for (const event of events) {
      const targets = await this.directory.subscribedTo(event.event);
      await mapConcurrent(targets, 16, async (target) => {
        const delivery = newDelivery(event, target.webhookId, now);
        await this.deliveries.createIfAbsent(delivery);
        refs.push({ webhookId: delivery.webhookId, id: delivery.id });
      });
    }
    const messages = [];
    for (let i = 0; i < refs.length; i += REFS_PER_MESSAGE) messages.push({ body: { deliveries: refs.slice(i, i + REFS_PER_MESSAGE) } satisfies DeliveriesMessage });
    if (messages.length > 0) await this.bus.send("deliveries", messages);
    return refs;
  }
}
