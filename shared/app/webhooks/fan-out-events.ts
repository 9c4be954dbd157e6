import { mapConcurrent } from "../../domain/concurrency";
import { newDelivery, type DeliveryRef, type StoredDelivery } from "../../domain/delivery";
import type { EventEnvelope } from "../../domain/events";
import type { Clock } from "../../ports/clock";
import { deliveryKey, type DeliveryRepository } from "../../ports/delivery-repository";
import type { DeliveryTarget, WebhookDirectory } from "../../ports/webhook-delivery";
import type { DeliveryAttempts } from "./delivery-attempts";

export interface FanOutEventsDeps {
  deliveries: DeliveryRepository;
  directory: WebhookDirectory;
  attempts: DeliveryAttempts;
  clock: Clock;
}

/** Deliveries looked up, attempted and recorded together (one bulk call each way). */
const DELIVERIES_PER_ROUND = 100;
/** Rounds of one message in flight at once (an event with very many subscribers makes several). */
const ROUNDS_AT_ONCE = 2;

/**
 * Turns the events of one message into a delivery per enabled webhook subscribed to each, and makes
 * each first attempt at once: one point read per delivery (in bulk) finds those an earlier copy of an
 * event made already, the others are POSTed and created with their outcome (one write each, in bulk).
 * Until then the `events` message is the only record of them: a crash makes it come back, and what
 * was recorded is not sent again. Idempotent by event id: a delivery's id derives from (event, webhook).
 */
export class FanOutEvents {
  constructor(private readonly deps: FanOutEventsDeps) {}

  /** Returns the deliveries the events map to. */
  async execute(events: readonly EventEnvelope[]): Promise<DeliveryRef[]> {
    const now = this.deps.clock.now();
    const planned = new Map<string, { delivery: StoredDelivery; target: DeliveryTarget }>();
    for (const event of events) {
      for (const target of await this.deps.directory.subscribedTo(event.event)) {
        const delivery = newDelivery(event, target.webhookId, now);
        planned.set(deliveryKey(delivery), { delivery, target });
      }
    }
    const all = [...planned.values()];
    const rounds: (typeof all)[] = [];
    for (let i = 0; i < all.length; i += DELIVERIES_PER_ROUND) rounds.push(all.slice(i, i + DELIVERIES_PER_ROUND));
    await mapConcurrent(rounds, ROUNDS_AT_ONCE, (round) =>
      // Held in this instance from the read to the outcome: a copy of the event fanned out at the same
      // time skips what this one attempts.
      this.deps.attempts.exclusively(
        round.map((p) => p.delivery),
        async (held) => {
          const existing = await this.deps.deliveries.getMany(held);
          // Recorded already (a repeated event, or a message back after a crash): its record, and its
          // own retry message or the sweep, take it from there.
          const fresh = held.filter((d) => !existing.has(deliveryKey(d))).map((d) => planned.get(deliveryKey(d))!);
          if (fresh.length > 0) await this.deps.attempts.attempt(fresh);
        },
      ),
    );
    return all.map(({ delivery }) => ({ webhookId: delivery.webhookId, id: delivery.id }));
  }
}
