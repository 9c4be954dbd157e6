import type { StoredWebhook } from "./webhook";

/** The default WEBHOOK_DISABLE_AFTER_DAYS: an endpoint that failed every delivery for this long is disabled. */
export const DEFAULT_DISABLE_AFTER_DAYS = 5;

/** What the attempts of one batch came to for one webhook. */
export interface WebhookOutcome {
  /** At least one attempt was answered 2xx. */
  delivered: boolean;
  /** When the batch's attempts were made. */
  at: Date;
  /** What the last failed attempt came to ("the endpoint answered 503"), when none was delivered. */
  lastFailure?: string;
}

/**
 * The webhook after some attempts, or undefined when nothing changes: a delivery clears `failingSince`;
 * the first failure after one sets it; a failure when every attempt since `failingSince` has failed for
 * `disableAfterDays` disables the webhook with the reason. Only an enabled webhook is disabled here (one
 * an administrator or a 410 disabled keeps that reason).
 */
export function afterOutcome(
  webhook: StoredWebhook,
  outcome: WebhookOutcome,
  disableAfterDays: number,
): StoredWebhook | undefined {
  if (outcome.delivered) {
    if (webhook.failingSince === undefined) return undefined;
    const { failingSince: _f, ...rest } = webhook;
    return rest;
  }
  if (webhook.failingSince === undefined) return { ...webhook, failingSince: outcome.at.toISOString() };
  if (webhook.status !== "enabled") return undefined;
  const failingForMs = outcome.at.getTime() - Date.parse(webhook.failingSince);
  if (failingForMs < disableAfterDays * 86_400_000) return undefined;
  return {
    ...webhook,
    status: "disabled",
    disabledReason: disabledForFailing(webhook.failingSince, disableAfterDays, outcome.lastFailure),
    updatedAt: outcome.at.toISOString(),
  };
}

/** Whether an outcome can change the webhook as it was last seen (so whether it is worth a write). */
export function mayChange(
  seen: Pick<StoredWebhook, "status" | "failingSince">,
  outcome: WebhookOutcome,
  disableAfterDays: number,
): boolean {
  if (outcome.delivered) return seen.failingSince !== undefined;
  if (seen.failingSince === undefined) return true;
  return (
    seen.status === "enabled" && outcome.at.getTime() - Date.parse(seen.failingSince) >= disableAfterDays * 86_400_000
  );
}

function disabledForFailing(since: string, days: number, lastFailure: string | undefined): string {
  const span = days === 1 ? "1 day" : `${days} days`;
  const last = lastFailure !== undefined ? ` (the last: ${lastFailure})` : "";
  return `every delivery failed for ${span}: no attempt succeeded since ${since}${last}`;
}
