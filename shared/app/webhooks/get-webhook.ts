import { toPublicWebhook, type Webhook } from "../../domain/webhook";
import { storedWebhook, type WebhookSettingsDeps } from "./webhook-settings";

export type GetWebhookDeps = Pick<WebhookSettingsDeps, "repository">;

/** One webhook, without its secrets. */
export class GetWebhook {
  constructor(private readonly deps: GetWebhookDeps) {}

  async execute(id: string): Promise<Webhook> {
    return toPublicWebhook(await storedWebhook(this.deps.repository, id));
  }
}
