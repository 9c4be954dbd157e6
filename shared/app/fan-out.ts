import { newDelivery, type DeliveryRef, type StoredDelivery } from "../domain/delivery";
import type { EventEnvelope } from "../domain/events";
import type { Clock } from "../ports/clock";
import { mapConcurrent } from "../domain/concurrency";
import type { DeliveryRepository } from "../ports/delivery-repository";
import type { MessageBus } from "../ports/message-bus";
import type { DeliveryTarget, WebhookDirectory } from "../ports/webhook-delivery";
import { deliveriesMessages, type DeliverWebhooks } from "./deliver-webhook";

/** Events of one message fanned out at once. */
const EVENTS_AT_ONCE = 8;
/** First attempts in flight per event (an event with very many subscribers goes in rounds). */
const ATTEMPTS_AT_ONCE = 32;

/**
 * Turns one event into a delivery per enabled webhook subscribed to it, and makes each first attempt
 * at once. Idempotent by event id: the delivery id derives from (event, webhook) and is created only
 * if absent. A delivery this call creates is created already claimed for its first attempt (its due
 * time a claim's length ahead), so the fan-out POSTs it straight away with no queue hop and no second
 * read; if the process ends before the outcome is written, the claim lapses and the sweep re-enqueues
 * it. A delivery that was there already (a repeated event message) is only enqueued on `deliveries`,
 * whose function skips it unless it is still pending and due: nothing is created twice, nothing that
 * succeeded is sent again.
 */
export class FanOutEvents {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly directory: WebhookDirectory,
    private readonly deliver: DeliverWebhooks,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
  ) {}

  /** Returns the deliveries the events map to (events of one message are fanned out a few at a time). */
  async run(events: readonly EventEnvelope[]): Promise<DeliveryRef[]> {
    const outcomes = await mapConcurrent(events, EVENTS_AT_ONCE, (event) => this.fanOut(event));
    const existing = outcomes.flatMap((o) => o.existing);
    if (existing.length > 0) await this.bus.send("deliveries", deliveriesMessages(existing));
    return outcomes.flatMap((o) => o.refs);
  }

  private async fanOut(event: EventEnvelope): Promise<{ refs: DeliveryRef[]; existing: DeliveryRef[] }> {
    const refs: DeliveryRef[] = [];
    const existing: DeliveryRef[] = [];
    const targets = await this.directory.subscribedTo(event.event);
    if (targets.length === 0) return { refs, existing };
    const now = this.clock.now();
    const claimed = targets.map((t) => ({ ...newDelivery(event, t.webhookId, now), nextAttemptAt: this.deliver.claimUntil(now) }));
    // One round trip creates the event's deliveries, one POST each follows, one round trip records them.
    const etags = await this.deliveries.createManyIfAbsent(claimed);
    const fresh: { claimed: StoredDelivery; etag: string; target: DeliveryTarget }[] = [];
    claimed.forEach((delivery, i) => {
      const ref = { webhookId: delivery.webhookId, id: delivery.id };
      refs.push(ref);
      const etag = etags[i];
      if (etag === undefined) existing.push(ref);
      else fresh.push({ claimed: delivery, etag, target: targets[i]! });
    });
    for (let i = 0; i < fresh.length; i += ATTEMPTS_AT_ONCE) await this.deliver.sendClaimedMany(fresh.slice(i, i + ATTEMPTS_AT_ONCE));
    return { refs, existing };
  }
}
