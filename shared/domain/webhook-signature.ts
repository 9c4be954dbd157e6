import { createHmac, randomBytes } from "node:crypto";
import { secretKeyBytes } from "./webhook-secret";

/**
 * The Standard Webhooks headers of one POST: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`, one `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` per secret,
 * space-separated (two after a rotation, so receivers holding either secret verify). Signature order
 * follows `secrets` (current first).
 */
export function signWebhook(id: string, timestamp: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const seconds = Math.floor(timestamp.getTime() / 1000).toString();
  const signatures = secrets.map((secret) => `v1,${createHmac("sha256", secretKeyBytes(secret)).update(`${id}.${seconds}.${body}`).digest("base64")}`);
  return { "webhook-id": id, "webhook-timestamp": seconds, "webhook-signature": signatures.join(" ") };
}

/** A message id for a webhook POST that is not a delivery of an event (the verification at creation). */
export const newMessageId = (): string => `msg_${randomBytes(16).toString("base64url")}`;
