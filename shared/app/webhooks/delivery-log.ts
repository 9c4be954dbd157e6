import type { StoredDelivery } from "../../domain/delivery";
import { notFound } from "../../domain/errors";
import type { Clock } from "../../ports/clock";
import type { DeliveryRepository } from "../../ports/delivery-repository";
import type { MessageBus } from "../../ports/message-bus";
import type { Outbox } from "../../ports/outbox";
import type { DeliveryTarget, WebhookDirectory } from "../../ports/webhook-delivery";
import type { DeliveryAttempts } from "./delivery-attempts";

/** What the delivery log's use cases (System Settings → Webhooks: the log, its manual retry, the test event) work with. */
export interface DeliveryLogDeps {
  deliveries: DeliveryRepository;
  directory: WebhookDirectory;
  attempts: DeliveryAttempts;
  bus: MessageBus;
  /** Where the fan-out records each event's completion. */
  outbox: Pick<Outbox, "markFannedOut">;
  clock: Clock;
}

/** The webhook as the delivery side sees it; NOT_FOUND once deleted. */
export async function webhookTarget(directory: WebhookDirectory, webhookId: string): Promise<DeliveryTarget> {
  const target = await directory.target(webhookId);
  if (target === undefined) throw notFound(`Webhook '${webhookId}'`);
  return target;
}

/** One delivery of a webhook as stored; NOT_FOUND when there is none. */
export async function storedDelivery(
  deliveries: DeliveryRepository,
  webhookId: string,
  deliveryId: string,
): Promise<StoredDelivery> {
  const found = await deliveries.get({ webhookId, id: deliveryId });
  if (found === undefined) throw notFound(`Delivery '${deliveryId}'`);
  return found;
}
