import { succeeded, testDelivery, withAttempt, type StoredDelivery } from "../../domain/delivery";
import { attemptEntry } from "../../domain/delivery-attempt";
import { AppError, notFound } from "../../domain/errors";
import type { StoredWebhook, Webhook } from "../../domain/webhook";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import { signWebhook } from "../../domain/webhook-signature";
import type { Clock } from "../../ports/clock";
import type { DeliveryRepository } from "../../ports/delivery-repository";
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
  /** Where the verification's `webhook.test` is recorded, as the first delivery in the webhook's log. */
  deliveries: Pick<DeliveryRepository, "createIfAbsent">;
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

/**
 * Sends the signed `webhook.test` event; anything but a 2xx is a 422 on `url` saying what happened.
 * Returns the delivery it made, succeeded, for the webhook's log (recordVerification).
 */
export async function verifyWebhookUrl(
  deps: Pick<WebhookSettingsDeps, "sender" | "clock">,
  webhookId: string,
  url: string,
  secrets: readonly string[],
): Promise<StoredDelivery> {
  const now = deps.clock.now();
  const delivery = testDelivery(webhookId, now);
  const result = await deps.sender.post(
    url,
    signWebhook(delivery.id, now, delivery.payload, secrets),
    delivery.payload,
  );
  if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300)
    return succeeded(withAttempt(delivery, attemptEntry({ ...result, at: now })), deps.clock.now());
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

/**
 * Records the verification in the webhook's log before the webhook is saved (or re-pointed): a save
 * that fails then leaves a record nobody can list, never a webhook whose log lacks its first delivery.
 */
export async function recordVerification(
  deps: Pick<WebhookSettingsDeps, "deliveries">,
  delivery: StoredDelivery,
): Promise<void> {
  await deps.deliveries.createIfAbsent(delivery);
}
