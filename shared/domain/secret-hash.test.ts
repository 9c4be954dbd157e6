import { describe, expect, it } from "vitest";
import { hashSecret, randomToken, verifySecret } from "./secret-hash";

describe("secret hashing", () => {
  it("verifies the right secret only, and never stores it", async () => {
    const secret = randomToken("sec_");
    const hash = await hashSecret(secret);
    expect(hash).not.toContain(secret);
    expect(hash).toMatch(/^scrypt\$/);
    expect(await verifySecret(secret, hash)).toBe(true);
    expect(await verifySecret(`${secret}x`, hash)).toBe(false);
    expect(await verifySecret(secret, undefined)).toBe(false);
    expect(await verifySecret(secret, "garbage")).toBe(false);
  });

  it("salts: the same secret hashes differently", async () => {
    expect(await hashSecret("same-secret")).not.toBe(await hashSecret("same-secret"));
  });
});
