import { randomBytes } from "node:crypto";
import { toPublicWebhook, type StoredWebhook, type WebhookCreate } from "../../domain/webhook";
import { generateWebhookSecret } from "../../domain/webhook-secret";
import {
  recordVerification,
  verifyWebhookUrl,
  type WebhookSettingsDeps,
  type WebhookWithSecret,
} from "./webhook-settings";

export type CreateWebhookDeps = WebhookSettingsDeps;

/** Subscribes a URL to events once it accepted a signed `webhook.test`; the secret (given or generated) is shown only in the answer. */
export class CreateWebhook {
  constructor(private readonly deps: CreateWebhookDeps) {}

  async execute(input: WebhookCreate): Promise<WebhookWithSecret> {
    // The id exists before the test event, which names it.
    const id = `wh_${randomBytes(12).toString("base64url")}`;
    const secret = input.secret ?? generateWebhookSecret();
    const verification = await verifyWebhookUrl(this.deps, id, input.url, [secret]);
    await recordVerification(this.deps, verification);
    const now = this.deps.clock.now().toISOString();
    const stored: StoredWebhook = {
      id,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      status: "enabled",
      createdAt: now,
      updatedAt: now,
      secret: this.deps.cipher.seal(secret, id),
    };
    await this.deps.repository.create(stored);
    this.deps.onChange(id);
    return { ...toPublicWebhook(stored), secret };
  }
}
