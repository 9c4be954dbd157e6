import { notFound } from "../../domain/errors";
import { toPublicWebhook, type StoredWebhook, type Webhook, type WebhookPatch } from "../../domain/webhook";
import {
  recordVerification,
  signingSecrets,
  storedWebhook,
  verifyWebhookUrl,
  type WebhookSettingsDeps,
} from "./webhook-settings";

export type UpdateWebhookDeps = WebhookSettingsDeps;

/** Changes the fields given; a new URL is verified first (with the secrets signing now). */
export class UpdateWebhook {
  constructor(private readonly deps: UpdateWebhookDeps) {}

  async execute({ id, patch }: { id: string; patch: WebhookPatch }): Promise<Webhook> {
    const current = await storedWebhook(this.deps.repository, id);
    if (patch.url !== undefined && patch.url !== current.url)
      await recordVerification(
        this.deps,
        await verifyWebhookUrl(this.deps, id, patch.url, signingSecrets(this.deps, current)),
      );
    const next = await this.deps.repository.update(id, (stored) => {
      const changed: StoredWebhook = { ...stored, updatedAt: this.deps.clock.now().toISOString() };
      if (patch.url !== undefined) changed.url = patch.url;
      if (patch.events !== undefined) changed.events = patch.events;
      if (patch.description !== undefined) changed.description = patch.description;
      if (patch.status !== undefined) changed.status = patch.status;
      // Enabled again: whatever disabled it is over, and its failures are counted afresh.
      if (patch.status === "enabled") delete changed.disabledReason;
      if (patch.status === "enabled" && stored.status === "disabled") delete changed.failingSince;
      return changed;
    });
    if (next === undefined) throw notFound(`Webhook '${id}'`);
    this.deps.onChange(id);
    return toPublicWebhook(next);
  }
}
