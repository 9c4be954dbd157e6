import { notFound } from "../../domain/errors";
import type { WebhookSettingsDeps } from "./webhook-settings";

export type DeleteWebhookDeps = Pick<WebhookSettingsDeps, "repository" | "onChange">;

/** Deletes a webhook; its pending deliveries fail when they next come due (the directory no longer knows it). */
export class DeleteWebhook {
  constructor(private readonly deps: DeleteWebhookDeps) {}

  async execute(id: string): Promise<void> {
    if (!(await this.deps.repository.delete(id))) throw notFound(`Webhook '${id}'`);
    this.deps.onChange(id);
  }
}
