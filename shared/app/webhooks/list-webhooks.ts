import type { CursorPage, PageRequest } from "../../domain/page-request";
import { toPublicWebhook, type Webhook } from "../../domain/webhook";
import type { WebhookSettingsDeps } from "./webhook-settings";

export type ListWebhooksDeps = Pick<WebhookSettingsDeps, "repository">;

/** The webhooks, by id, without their secrets. */
export class ListWebhooks {
  constructor(private readonly deps: ListWebhooksDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<Webhook>> {
    const result = await this.deps.repository.list(request);
    return { ...result, items: result.items.map(toPublicWebhook) };
  }
}
