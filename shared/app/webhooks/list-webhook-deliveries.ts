import { publicDelivery, type Delivery } from "../../domain/delivery";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { DeliveryFilter } from "../../ports/delivery-repository";
import { webhookTarget, type DeliveryLogDeps } from "./delivery-log";

export type ListWebhookDeliveriesDeps = Pick<DeliveryLogDeps, "deliveries" | "directory">;

export interface ListWebhookDeliveriesInput {
  webhookId: string;
  filter: DeliveryFilter;
  request: PageRequest;
}

/** A webhook's deliveries, newest first, by page number or cursor; filtered by status, event and when they were created. */
export class ListWebhookDeliveries {
  constructor(private readonly deps: ListWebhookDeliveriesDeps) {}

  async execute({ webhookId, filter, request }: ListWebhookDeliveriesInput): Promise<CursorPage<Delivery>> {
    await webhookTarget(this.deps.directory, webhookId);
    const page = await this.deps.deliveries.list(webhookId, filter, request);
    return { ...page, items: page.items.map(publicDelivery) };
  }
}
