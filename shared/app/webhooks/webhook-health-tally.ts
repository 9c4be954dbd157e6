import type { StoredDelivery } from "../../domain/delivery";
import type { WebhookOutcome } from "../../domain/webhook-health";

/**
 * What a batch of attempts came to per webhook: delivered when any attempt was answered 2xx, else the
 * last failure. One health record per webhook and batch, so a burst costs no write per attempt.
 */
export class WebhookHealthTally {
  private readonly byWebhook = new Map<string, WebhookOutcome>();

  constructor(private readonly at: Date) {}

  /** One attempt's record, as stored after it. */
  add(delivery: StoredDelivery): void {
    if (this.byWebhook.get(delivery.webhookId)?.delivered === true) return;
    const { statusCode, error } = delivery.lastAttempt ?? {};
    const delivered = statusCode !== undefined && statusCode >= 200 && statusCode < 300;
    this.byWebhook.set(
      delivery.webhookId,
      delivered ? { delivered, at: this.at } : { delivered, at: this.at, lastFailure: error ?? "no answer" },
    );
  }

  /** The outcomes, except those of the webhooks `skip` names (disabled by a 410 already). */
  outcomes(skip: ReadonlySet<string>): [string, WebhookOutcome][] {
    return [...this.byWebhook].filter(([id]) => !skip.has(id));
  }
}
