import { AppError, notFound } from "../../domain/errors";
import type { StoredWebhook, Webhook } from "../../domain/webhook";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import { newMessageId, signWebhook } from "../../domain/webhook-signature";
import type { Clock } from "../../ports/clock";
import type { WebhookSender } from "../../ports/webhook-delivery";
import type { WebhookRepository } from "../../ports/webhook-repository";

/**
 * What the System Settings › Webhooks use cases work with. A URL is saved only after it accepted a
 * signed `webhook.test` event (the sender's SSRF guard refuses it first when it may not be reached);
 * secrets are sealed at rest and shown only when created or rotated.
 */
export interface WebhookSettingsDeps {
  repository: WebhookRepository;
  sender: WebhookSender;
  cipher: WebhookSecretCipher;
  clock: Clock;
  /** Called after a change so cached copies (the directory's) are dropped. */
  onChange: (id: string) => void;
}

export type WebhookWithSecret = Webhook & { secret: string };

/** The webhook as stored; NOT_FOUND when there is none. */
export async function storedWebhook(repository: WebhookRepository, id: string): Promise<StoredWebhook> {
  const stored = await repository.get(id);
  if (stored === undefined) throw notFound(`Webhook '${id}'`);
  return stored;
}

/** Decrypted secrets that sign now: the current one, and the previous one until its 24 h are over. */
export function signingSecrets(deps: Pick<WebhookSettingsDeps, "cipher" | "clock">, stored: StoredWebhook): string[] {
  const secrets = [deps.cipher.open(stored.secret, stored.id)];
  if (stored.previousSecret !== undefined && stored.previousSecret.until > deps.clock.now().toISOString()) {
    secrets.push(deps.cipher.open(stored.previousSecret.secret, stored.id));
  }
  return secrets;
}

/** Sends the signed `webhook.test` event; anything but a 2xx is a 422 on `url` saying what happened. */
export async function verifyWebhookUrl(
  deps: Pick<WebhookSettingsDeps, "sender" | "clock">,
  webhookId: string,
  url: string,
  secrets: readonly string[],
): Promise<void> {
  const id = newMessageId();
  const now = deps.clock.now();
  const body = JSON.stringify({ id, event: "webhook.test", timestamp: now.toISOString(), data: { webhookId } });
  const result = await deps.sender.post(url, signWebhook(id, now, body, secrets), body);
  if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300) return;
  const what = result.error ?? `the endpoint answered ${result.statusCode ?? "nothing"}`;
  if (result.refused === true)
    throw new AppError("VALIDATION_ERROR", "The webhook URL may not be used", {
      details: [{ field: "url", message: what }],
    });
  throw new AppError("VALIDATION_ERROR", "The webhook URL did not accept the webhook.test event", {
    details: [
      { field: "url", message: `${what}; the URL must answer the signed webhook.test event with a 2xx within 15 s` },
    ],
  });
}
