import { notFound } from "../../domain/errors";
import { PREVIOUS_SECRET_HOURS, toPublicWebhook } from "../../domain/webhook";
import { generateWebhookSecret } from "../../domain/webhook-secret";
import type { WebhookSettingsDeps, WebhookWithSecret } from "./webhook-settings";

export type RotateWebhookSecretDeps = Pick<WebhookSettingsDeps, "repository" | "cipher" | "clock" | "onChange">;

/** A new secret, shown only in the answer; the one it replaces keeps signing (a second signature) for 24 h. */
export class RotateWebhookSecret {
  constructor(private readonly deps: RotateWebhookSecretDeps) {}

  async execute(id: string): Promise<WebhookWithSecret> {
    const secret = generateWebhookSecret();
    const sealed = this.deps.cipher.seal(secret, id);
    const next = await this.deps.repository.update(id, (stored) => {
      const now = this.deps.clock.now();
      const until = new Date(now.getTime() + PREVIOUS_SECRET_HOURS * 3600_000).toISOString();
      return {
        ...stored,
        secret: sealed,
        previousSecret: { secret: stored.secret, until },
        updatedAt: now.toISOString(),
      };
    });
    if (next === undefined) throw notFound(`Webhook '${id}'`);
    this.deps.onChange(id);
    return { ...toPublicWebhook(next), secret };
  }
}
