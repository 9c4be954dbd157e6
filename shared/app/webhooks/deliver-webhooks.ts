import { failed, type StoredDelivery } from "../../domain/delivery";
import type { Clock } from "../../ports/clock";
import { deliveryKey, type DeliveryRepository } from "../../ports/delivery-repository";
import type { WebhookDirectory } from "../../ports/webhook-delivery";
import type { DeliveriesMessage, DeliveryTicket } from "./deliveries-message";
import type { Attempt, DeliveryAttempts } from "./delivery-attempts";

export interface DeliverWebhooksDeps {
  deliveries: DeliveryRepository;
  directory: WebhookDirectory;
  attempts: DeliveryAttempts;
  clock: Clock;
}

/**
 * The retries: attempts each delivery a `deliveries` message names that is pending, due, and still
 * due at the time the message names. Two copies of one message are kept apart by that due time (a
 * copy that comes after an attempt is stale) and, within an instance, by holding each delivery from
 * its read to its outcome. A delivery whose webhook was deleted or disabled fails with a reason.
 */
export class DeliverWebhooks {
  constructor(private readonly deps: DeliverWebhooksDeps) {}

  async execute(message: DeliveriesMessage): Promise<void> {
    const tickets = [...new Map(message.deliveries.map((t) => [deliveryKey(t), t])).values()];
    await this.deps.attempts.exclusively(tickets, async (held) => {
      const found = await this.deps.deliveries.getMany(held);
      const now = this.deps.clock.now();
      const attempts: Attempt[] = [];
      for (const ticket of held) {
        const stored = found.get(deliveryKey(ticket));
        if (stored === undefined || !isDue(stored, ticket, now)) continue;
        const target = await this.deps.directory.target(ticket.webhookId);
        if (target === undefined || target.status !== "enabled") {
          const reason = target === undefined ? "the webhook was deleted" : "the webhook is disabled";
          await this.deps.deliveries.update(ticket, (d) =>
            d.status === "pending" ? failed(d, now, reason) : undefined,
          );
          continue;
        }
        const { _etag: etag, ...delivery } = stored;
        attempts.push({ delivery, etag: etag ?? "", target });
      }
      await this.deps.attempts.attempt(attempts);
    });
  }
}

/** Pending, due now, and (when the message names one) still due at the time the message was sent for. */
function isDue(stored: StoredDelivery, ticket: DeliveryTicket, now: Date): boolean {
  if (stored.status !== "pending") return false;
  if (stored.nextAttemptAt !== undefined && stored.nextAttemptAt > now.toISOString()) return false;
  return ticket.due === undefined || stored.nextAttemptAt === ticket.due;
}
