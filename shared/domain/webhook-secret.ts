import { randomBytes } from "node:crypto";
import { z } from "zod";

const PREFIX = "whsec_";

/** `whsec_` + canonical base64 of 24 to 64 bytes. */
export const webhookSecretSchema = z.string().refine(
  (s) => {
    if (!s.startsWith(PREFIX)) return false;
    const b64 = s.slice(PREFIX.length);
    const bytes = Buffer.from(b64, "base64");
    return bytes.length >= 24 && bytes.length <= 64 && bytes.toString("base64") === b64;
  },
  { message: "must be whsec_ followed by the base64 of 24 to 64 random bytes" },
);

/** A new secret: 32 random bytes. */
export const generateWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString("base64")}`;
