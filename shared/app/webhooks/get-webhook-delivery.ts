import { deliveryDetail, type DeliveryDetail } from "../../domain/delivery";
import { storedDelivery, webhookTarget, type DeliveryLogDeps } from "./delivery-log";

export type GetWebhookDeliveryDeps = Pick<DeliveryLogDeps, "deliveries" | "directory">;

/** One delivery of a webhook with its attempt log. */
export class GetWebhookDelivery {
  constructor(private readonly deps: GetWebhookDeliveryDeps) {}

  async execute({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }): Promise<DeliveryDetail> {
    await webhookTarget(this.deps.directory, webhookId);
    return deliveryDetail(await storedDelivery(this.deps.deliveries, webhookId, deliveryId));
  }
}
