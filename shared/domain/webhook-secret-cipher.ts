import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

/**
 * Seals webhook secrets at rest with AES-256-GCM under WEBHOOK_SECRET_KEY (a Key Vault secret in
 * Azure): a stored document alone does not reveal them. Sealed form `v1.<iv>.<tag>.<ciphertext>`
 * (base64url); the webhook id is the additional data, so a sealed secret cannot be moved to another webhook.
 */
export class WebhookSecretCipher {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, "base64");
    if (this.key.length !== 32) throw new Error("WEBHOOK_SECRET_KEY must be base64 of 32 bytes");
  }

  seal(secret: string, webhookId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(webhookId));
    const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  open(sealed: string, webhookId: string): string {
    const [version, iv, tag, data] = sealed.split(".");
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined)
      throw new Error("not a sealed webhook secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  }
}
