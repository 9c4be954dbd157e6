import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

const PARAMS: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, PARAMS, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** A salted scrypt hash in the form `scrypt$<salt>$<hash>` (base64url). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt);
  return `scrypt$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

// Compared against when the client does not exist, so an unknown id costs as much as a wrong secret.
const DUMMY_HASH = `scrypt$${Buffer.alloc(16).toString("base64url")}$${Buffer.alloc(KEY_LENGTH).toString("base64url")}`;

/** Compares in constant time; `hash` undefined means "no such client" and still does the work. */
export async function verifySecret(secret: string, hash: string | undefined): Promise<boolean> {
  const [scheme, saltText, keyText] = (hash ?? DUMMY_HASH).split("$");
  if (scheme !== "scrypt" || saltText === undefined || keyText === undefined) return false;
  const expected = Buffer.from(keyText, "base64url");
  const actual = await derive(secret, Buffer.from(saltText, "base64url"));
  return expected.length === actual.length && timingSafeEqual(expected, actual) && hash !== undefined;
}

/** A random URL-safe token with the given prefix, e.g. a client secret. */
export const randomToken = (prefix: string, bytes = 32): string =>
  `${prefix}${randomBytes(bytes).toString("base64url")}`;
