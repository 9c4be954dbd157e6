import { mapConcurrent } from "../../domain/concurrency";
import { newDelivery, type DeliveryRef, type StoredDelivery } from "../../domain/delivery";
import type { EventEnvelope } from "../../domain/events";
import type { Clock } from "../../ports/clock";
import { deliveryKey, type DeliveryRepository } from "../../ports/delivery-repository";
import type { Outbox } from "../../ports/outbox";
import type { DeliveryTarget, WebhookDirectory } from "../../ports/webhook-delivery";
import type { DeliveryAttempts } from "./delivery-attempts";

export interface FanOutEventsDeps {
  deliveries: DeliveryRepository;
  directory: WebhookDirectory;
  attempts: DeliveryAttempts;
  /** Where each event's fan-out is recorded as complete. */
  outbox: Pick<Outbox, "markFannedOut">;
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
 * Idempotent by event id: a delivery's id derives from (event, webhook). Once every delivery of an
 * event is recorded, the event's outbox entry says so; until then the `events` message holds them (a
 * crash makes it come back), and should the message be lost, the outbox's sweep sends the event again.
 */
export class FanOutEvents {
  constructor(private readonly deps: FanOutEventsDeps) {}

  /** Returns the deliveries the events map to. */
  async execute(events: readonly EventEnvelope[]): Promise<DeliveryRef[]> {
    const now = this.deps.clock.now();
    const planned = new Map<string, { delivery: StoredDelivery; target: DeliveryTarget }>();
    const deliveriesOf = new Map<string, string[]>();
    for (const event of events) {
      const keys = deliveriesOf.get(event.id) ?? [];
      for (const target of await this.deps.directory.subscribedTo(event.event)) {
        const delivery = newDelivery(event, target.webhookId, now);
        planned.set(deliveryKey(delivery), { delivery, target });
        keys.push(deliveryKey(delivery));
      }
      deliveriesOf.set(event.id, keys);
    }
    const all = [...planned.values()];
    const rounds: (typeof all)[] = [];
    for (let i = 0; i < all.length; i += DELIVERIES_PER_ROUND) rounds.push(all.slice(i, i + DELIVERIES_PER_ROUND));
    /** Deliveries whose record this call found or wrote (not those another copy of the message holds). */
    const recorded = new Set<string>();
    await mapConcurrent(rounds, ROUNDS_AT_ONCE, (round) =>
      // Held in this instance from the read to the outcome: a copy of the event fanned out at the same
      // time skips what this one attempts (and leaves recording the event's fan-out to it).
      this.deps.attempts.exclusively(
        round.map((p) => p.delivery),
        async (held) => {
          const existing = await this.deps.deliveries.getMany(held);
          // Recorded already (a repeated event, or a message back after a crash): its record, and its
          // own retry message or the sweep, take it from there.
          const fresh = held.filter((d) => !existing.has(deliveryKey(d))).map((d) => planned.get(deliveryKey(d))!);
          if (fresh.length > 0) await this.deps.attempts.attempt(fresh);
          for (const d of held) recorded.add(deliveryKey(d));
        },
      ),
    );
    const complete = [...deliveriesOf].filter(([, keys]) => keys.every((k) => recorded.has(k))).map(([id]) => id);
    if (complete.length > 0) await this.deps.outbox.markFannedOut(complete);
    return all.map(({ delivery }) => ({ webhookId: delivery.webhookId, id: delivery.id }));
  }
}
