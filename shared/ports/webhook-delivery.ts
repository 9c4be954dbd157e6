import type { AttemptResponse } from "../domain/delivery-attempt";
import type { EventName } from "../domain/events";
import type { WebhookOutcome } from "../domain/webhook-health";

/**
 * What the delivery side needs of a webhook: where to POST and the secrets to sign with, already
 * decrypted (the current `whsec_` secret, and for 24 h after a rotation the previous one too).
 */
export interface DeliveryTarget {
  webhookId: string;
  url: string;
  status: "enabled" | "disabled";
  events: readonly EventName[];
  /** The first failed attempt since the last delivered one (absent while deliveries succeed). */
  failingSince?: string;
  /** Plain `whsec_...` secrets to sign with, current first; never logged, never returned by the API. */
  signingSecrets: readonly string[];
}

/** The webhooks the fan-out and delivery functions read (System Settings → Webhooks). */
export interface WebhookDirectory {
  /** Enabled webhooks subscribed to `event`. */
  subscribedTo(event: EventName): Promise<DeliveryTarget[]>;
  /** One webhook, enabled or not; undefined once deleted. */
  target(webhookId: string): Promise<DeliveryTarget | undefined>;
  /** Disables the webhook with a reason (a 410 answer). */
  disable(webhookId: string, reason: string): Promise<void>;
  /**
   * Keeps track of a webhook's health after some attempts (`failingSince`), and disables it once every
   * delivery has failed for WEBHOOK_DISABLE_AFTER_DAYS: returns the reason when this call disabled it.
   */
  recordOutcome(webhookId: string, outcome: WebhookOutcome): Promise<string | undefined>;
}

/** What one POST to a webhook URL came to. */
export interface WebhookPostResult {
  /** Absent when no HTTP answer came (refused address, DNS failure, time-out, connection error). */
  statusCode?: number;
  /** The answer's Retry-After in seconds, when it sent one. */
  retryAfterSeconds?: number;
  /** Why it failed, safe to show the customer (no secret, no internal detail). */
  error?: string;
  /** True when the SSRF guard refused the URL before any connection (not https, credentials, a non-public address). */
  refused?: boolean;
  /** From the start to the answer's status line (or to the failure). */
  durationMs: number;
  /** Every header the POST carried (or would have carried, had it been sent). */
  requestHeaders: Record<string, string>;
  /** What came back, when an answer did: its headers (bounded) and the first 4 KB of its body. */
  response?: AttemptResponse;
}

/**
 * POSTs to customer URLs: the SSRF guard (https only unless private networks are allowed; the host
 * resolved once, every address vetted, the connection made to the vetted address), a 15 s time-out,
 * no redirects followed (a 3xx is a failure).
 */
export interface WebhookSender {
  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<WebhookPostResult>;
}
