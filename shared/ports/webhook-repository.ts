import type { StoredWebhook } from "../domain/webhook";
import type { SettingsRepository } from "./settings-repository";

/** Stored webhooks (System Settings → Webhooks); secrets arrive sealed. */
export type WebhookRepository = SettingsRepository<StoredWebhook>;
