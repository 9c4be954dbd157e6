import { describe, expect, it } from "vitest";
import { WebhookSecretCipher } from "./webhook-secret-cipher";

const key = Buffer.alloc(32, 3).toString("base64");

describe("WebhookSecretCipher (AES-256-GCM)", () => {
  it("seals so the secret is not visible and opens it again", () => {
    const cipher = new WebhookSecretCipher(key);
    const sealed = cipher.seal("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", "wh_1");
    expect(sealed).not.toContain("c2VjcmV0");
    expect(sealed).not.toBe(cipher.seal("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", "wh_1")); // a fresh IV each time
    expect(cipher.open(sealed, "wh_1")).toBe("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0");
  });

  it("refuses another key, another webhook's id and a tampered value", () => {
    const cipher = new WebhookSecretCipher(key);
    const sealed = cipher.seal("whsec_abc", "wh_1");
    expect(() => new WebhookSecretCipher(Buffer.alloc(32, 4).toString("base64")).open(sealed, "wh_1")).toThrow();
    expect(() => cipher.open(sealed, "wh_2")).toThrow();
    const parts = sealed.split(".");
    parts[3] = Buffer.from("whsec_abd").toString("base64url");
    expect(() => cipher.open(parts.join("."), "wh_1")).toThrow();
  });

  it("wants a 32-byte key", () => {
    expect(() => new WebhookSecretCipher(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
  });
});
