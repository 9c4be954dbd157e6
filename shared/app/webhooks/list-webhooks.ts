import type { CursorPage, PageRequest } from "../../domain/page-request";
import { toPublicWebhook, type Webhook } from "../../domain/webhook";
import type { WebhookSettingsDeps } from "./webhook-settings";

export type ListWebhooksDeps = Pick<WebhookSettingsDeps, "repository">;

/** The webhooks, by id, without their secrets. */
export class ListWebhooks {
  constructor(private readonly deps: ListWebhooksDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Webhook>> {
    // Settings lists are paged by number only (tens of items; the contract has no cursor for them).
    const result = await this.deps.repository.list(request.page ?? 1, request.pageSize);
    return { items: result.items.map(toPublicWebhook), totalItems: result.totalItems, nextCursor: null };
  }
}
