import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, webhookSecretSchema } from "./webhook-secret";
import { signWebhook } from "./webhook-signature";

// Verified with the `standardwebhooks` package, an implementation independent of ours.
describe("signWebhook (Standard Webhooks)", () => {
  const body = JSON.stringify({
    id: "msg_1",
    event: "webhook.test",
    timestamp: "2026-01-01T00:00:00.000Z",
    data: { webhookId: "wh_1" },
  });

  it("signs id, Unix-seconds timestamp and body so a receiver's library verifies it", () => {
    const secret = generateWebhookSecret();
    const now = new Date();
    const headers = signWebhook("msg_1", now, body, [secret]);
    expect(headers["webhook-id"]).toBe("msg_1");
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace("wh_1", "wh_2"), headers)).toThrow();
  });

  it("carries one space-separated signature per secret, each verifying on its own", () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signWebhook("msg_2", new Date(), body, [current, previous]);
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });

  it("signs the whole seconds the timestamp header carries, keyed by the base64 after whsec_", () => {
    // A time just before a second ends: a signature over rounded (not floored) seconds would not match the header.
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 999));
    const key = Buffer.alloc(32, 7);
    const headers = signWebhook("msg_3", at, body, [`whsec_${key.toString("base64")}`]);
    expect(headers["webhook-timestamp"]).toBe(String(Date.UTC(2026, 0, 1) / 1000));
    expect(headers["webhook-signature"]).toBe(
      `v1,${createHmac("sha256", key).update(`msg_3.${headers["webhook-timestamp"]}.${body}`).digest("base64")}`,
    );
  });

  it("matches the Standard Webhooks reference vector", () => {
    // From the specification's test suite: secret, id, timestamp and payload with their signature.
    const headers = signWebhook("msg_p5jXN8AQM9LWM0D4loKWxJek", new Date(1614265330 * 1000), '{"test": 2432232314}', [
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ]);
    expect(headers["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });
});

describe("webhook secrets", () => {
  it("accepts whsec_ + canonical base64 of 24 to 64 bytes and nothing else", () => {
    const b64 = (n: number) => Buffer.alloc(n, 1).toString("base64");
    expect(webhookSecretSchema.safeParse(generateWebhookSecret()).success).toBe(true);
    expect(webhookSecretSchema.safeParse(`whsec_${b64(24)}`).success).toBe(true);
    expect(webhookSecretSchema.safeParse(`whsec_${b64(64)}`).success).toBe(true);
    for (const bad of [
      `whsec_${b64(23)}`,
      `whsec_${b64(65)}`,
      b64(32),
      `whsec_${b64(32)}!`,
      "whsec_",
      `sec_${b64(32)}`,
    ]) {
      expect(webhookSecretSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});
