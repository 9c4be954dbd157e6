import { publicDelivery, type Delivery, type DeliveryStatus } from "../../domain/delivery";
import { AppError, notFound } from "../../domain/errors";
import { deliveriesMessages } from "./deliveries-message";
import { storedDelivery, webhookTarget, type DeliveryLogDeps } from "./delivery-log";

export type RetryWebhookDeliveryDeps = Pick<DeliveryLogDeps, "deliveries" | "directory" | "bus" | "clock">;

/** Sends a failed delivery again (same id, same body): it goes pending, due now, with a fresh retry schedule. */
export class RetryWebhookDelivery {
  constructor(private readonly deps: RetryWebhookDeliveryDeps) {}

  async execute({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }): Promise<Delivery> {
    const target = await webhookTarget(this.deps.directory, webhookId);
    if (target.status !== "enabled")
      throw new AppError("CONFLICT", `Webhook '${webhookId}' is disabled; enable it before retrying its deliveries`);
    await storedDelivery(this.deps.deliveries, webhookId, deliveryId);
    const now = this.deps.clock.now().toISOString();
    let refused: DeliveryStatus | undefined;
    const updated = await this.deps.deliveries.update({ webhookId, id: deliveryId }, (d) => {
      if (d.status !== "failed") {
        refused = d.status;
        return undefined;
      }
      refused = undefined;
      const { completedAt: _c, failureReason: _f, ...rest } = d;
      return { ...rest, status: "pending", nextAttemptAt: now, scheduleOffset: d.attempts };
    });
    if (updated === undefined) throw notFound(`Delivery '${deliveryId}'`);
    if (refused !== undefined)
      throw new AppError("CONFLICT", `Delivery '${deliveryId}' is ${refused}; only a failed delivery can be retried`);
    await this.deps.bus.send("deliveries", deliveriesMessages([{ webhookId, id: deliveryId, due: now }]));
    return publicDelivery(updated);
  }
}
