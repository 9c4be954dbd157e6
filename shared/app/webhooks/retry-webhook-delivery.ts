import { publicDelivery, reopened, type Delivery } from "../../domain/delivery";
import { AppError, notFound } from "../../domain/errors";
import { deliveriesMessages } from "./deliveries-message";
import { storedDelivery, webhookTarget, type DeliveryLogDeps } from "./delivery-log";

export type RetryWebhookDeliveryDeps = Pick<DeliveryLogDeps, "deliveries" | "directory" | "bus" | "clock">;

/**
 * Sends a delivery now (same id, same body). A failed one goes pending with a fresh retry schedule; a
 * pending one is brought forward, and its schedule continues after this attempt (the message it was
 * waiting for finds it no longer due at that time, and is skipped). A succeeded one is a conflict.
 */
export class RetryWebhookDelivery {
  constructor(private readonly deps: RetryWebhookDeliveryDeps) {}

  async execute({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }): Promise<Delivery> {
    const target = await webhookTarget(this.deps.directory, webhookId);
    if (target.status !== "enabled")
      throw new AppError("CONFLICT", `Webhook '${webhookId}' is disabled; enable it before retrying its deliveries`);
    await storedDelivery(this.deps.deliveries, webhookId, deliveryId);
    const now = this.deps.clock.now();
    let refused = false;
    const updated = await this.deps.deliveries.update({ webhookId, id: deliveryId }, (d) => {
      refused = d.status === "succeeded";
      if (refused) return undefined;
      return d.status === "failed" ? reopened(d, now) : { ...d, nextAttemptAt: now.toISOString() };
    });
    if (updated === undefined) throw notFound(`Delivery '${deliveryId}'`);
    if (refused)
      throw new AppError(
        "CONFLICT",
        `Delivery '${deliveryId}' succeeded already; only a pending or failed one is sent again`,
      );
    const due = updated.nextAttemptAt ?? now.toISOString();
    await this.deps.bus.send("deliveries", deliveriesMessages([{ webhookId, id: deliveryId, due }]));
    return publicDelivery(updated);
  }
}
