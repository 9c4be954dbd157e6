import { Webhook } from "standardwebhooks";

/**
 * The Standard Webhooks headers of one POST: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`, one `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` per secret,
 * space-separated (two after a rotation, so receivers holding either secret verify). Signature order
 * follows `secrets` (current first). Each signature is the reference library's (`standardwebhooks`,
 * the one receivers verify with): it takes the `whsec_` secret as is and signs the timestamp in whole
 * seconds, as the header carries it.
 */
export function signWebhook(
  id: string,
  timestamp: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body));
  return {
    "webhook-id": id,
    "webhook-timestamp": Math.floor(timestamp.getTime() / 1000).toString(),
    "webhook-signature": signatures.join(" "),
  };
}
