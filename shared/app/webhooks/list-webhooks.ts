import type { CursorPage, PageRequest } from "../../domain/page-request";
import { toPublicWebhook, type Webhook, type WebhookStatus } from "../../domain/webhook";
import type { WebhookSettingsDeps } from "./webhook-settings";

export type ListWebhooksDeps = Pick<WebhookSettingsDeps, "repository">;

/** The webhooks, by id, without their secrets; only those of one status when asked (the disabled ones, for a notice). */
export class ListWebhooks {
  constructor(private readonly deps: ListWebhooksDeps) {}

  async execute(request: PageRequest, filter: { status?: WebhookStatus } = {}): Promise<CursorPage<Webhook>> {
    const result = await this.deps.repository.list(
      request,
      filter.status !== undefined ? { status: filter.status } : {},
    );
    return { ...result, items: result.items.map(toPublicWebhook) };
  }
}
