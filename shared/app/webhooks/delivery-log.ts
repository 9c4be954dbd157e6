import { randomUUID } from "node:crypto";
import {
  deliveryDetail,
  newDelivery,
  publicDelivery,
  type Delivery,
  type DeliveryDetail,
  type DeliveryEventName,
  type DeliveryStatus,
  type StoredDelivery,
} from "../../domain/delivery";
import { AppError, notFound } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { Clock } from "../../ports/clock";
import type { DeliveryRepository } from "../../ports/delivery-repository";
import type { MessageBus } from "../../ports/message-bus";
import type { WebhookDirectory } from "../../ports/webhook-delivery";
import type { DeliverWebhooks } from "./deliver-webhooks";
import { deliveriesMessages } from "./deliveries-message";

/** A webhook's delivery log, its manual retry and the test event (System Settings → Webhooks). */
export class DeliveryLog {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly directory: WebhookDirectory,
    private readonly deliver: DeliverWebhooks,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
  ) {}

  async list(webhookId: string, filter: { status?: DeliveryStatus; event?: DeliveryEventName }, request: PageRequest): Promise<CursorPage<Delivery>> {
    await this.webhook(webhookId);
    const page = await this.deliveries.list(webhookId, filter, request);
    return { ...page, items: page.items.map(publicDelivery) };
  }

  async get(webhookId: string, deliveryId: string): Promise<DeliveryDetail> {
    await this.webhook(webhookId);
    return deliveryDetail(await this.stored(webhookId, deliveryId));
  }

  /** Sends a failed delivery again (same id, same body): it goes pending, due now, with a fresh retry schedule. */
  async retry(webhookId: string, deliveryId: string): Promise<Delivery> {
    const target = await this.webhook(webhookId);
    if (target.status !== "enabled") throw new AppError("CONFLICT", `Webhook '${webhookId}' is disabled; enable it before retrying its deliveries`);
    await this.stored(webhookId, deliveryId);
    const now = this.clock.now().toISOString();
    let refused: DeliveryStatus | undefined;
    const updated = await this.deliveries.update({ webhookId, id: deliveryId }, (d) => {
      if (d.status !== "failed") {
        refused = d.status;
        return undefined;
      }
      refused = undefined;
      const { completedAt: _c, failureReason: _f, ...rest } = d;
      return { ...rest, status: "pending", nextAttemptAt: now, scheduleOffset: d.attempts };
    });
    if (updated === undefined) throw notFound(`Delivery '${deliveryId}'`);
    if (refused !== undefined) throw new AppError("CONFLICT", `Delivery '${deliveryId}' is ${refused}; only a failed delivery can be retried`);
    await this.bus.send("deliveries", deliveriesMessages([{ webhookId, id: deliveryId, due: now }]));
    return publicDelivery(updated);
  }

  /** Sends `webhook.test` now, disabled webhook or not, as a delivery of its own (retried like any other when it fails). */
  async test(webhookId: string): Promise<Delivery> {
    const target = await this.webhook(webhookId);
    const now = this.clock.now();
    const event = { id: `evt_test_${randomUUID().replaceAll("-", "")}`, event: "webhook.test" as const, timestamp: now.toISOString(), data: { webhookId } };
    const [stored] = await this.deliver.firstAttempts([{ delivery: newDelivery(event, webhookId, now), target }]);
    if (stored === undefined) throw new Error(`test delivery of ${webhookId} was not attempted`); // a fresh random event id: cannot happen
    return publicDelivery(stored);
  }

  private async webhook(webhookId: string) {
    const target = await this.directory.target(webhookId);
    if (target === undefined) throw notFound(`Webhook '${webhookId}'`);
    return target;
  }

  private async stored(webhookId: string, deliveryId: string): Promise<StoredDelivery> {
    const found = await this.deliveries.get({ webhookId, id: deliveryId });
    if (found === undefined) throw notFound(`Delivery '${deliveryId}'`);
    return found;
  }
}
