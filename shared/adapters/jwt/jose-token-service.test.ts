import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { AppError } from "../../domain/errors";
import { JoseTokenService } from "./jose-token-service";

const secret = new Uint8Array(32).fill(3);
const previous = new Uint8Array(32).fill(9);
const settings = {
  issuer: "iss",
  audience: "aud",
  current: { kid: "k2", secret },
  previous: { kid: "k1", secret: previous },
};

describe("JoseTokenService", () => {
  it("round-trips a token with its claims and kid", async () => {
    const service = new JoseTokenService(settings, () => 1_000_000);
    const { accessToken, expiresIn } = await service.issue("client-1", ["api.read", "api.write"]);
    expect(expiresIn).toBe(3600);
    const header = JSON.parse(Buffer.from(accessToken.split(".")[0] ?? "", "base64url").toString());
    expect(header).toMatchObject({ alg: "HS256", kid: "k2" });
    expect(await service.verify(accessToken)).toEqual({
      clientId: "client-1",
      scopes: ["api.read", "api.write"],
      issuedAt: 1_000_000,
      expiresAt: 1_003_600,
    });
  });

  it("rejects a token after its hour is up (fake clock)", async () => {
    let now = 1_000_000;
    const service = new JoseTokenService(settings, () => now);
    const { accessToken } = await service.issue("c", ["api.read"]);
    now += 3599;
    await expect(service.verify(accessToken)).resolves.toBeDefined();
    now += 2;
    await expect(service.verify(accessToken)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: "The access token has expired",
    });
  });

  it("still verifies tokens signed with the previous key during a rotation", async () => {
    const old = new JoseTokenService(
      { ...settings, current: { kid: "k1", secret: previous }, previous: undefined },
      () => 1_000_000,
    );
    const { accessToken } = await old.issue("c", ["api.read"]);
    await expect(new JoseTokenService(settings, () => 1_000_000).verify(accessToken)).resolves.toMatchObject({
      clientId: "c",
    });
    const withoutPrevious = new JoseTokenService({ ...settings, previous: undefined }, () => 1_000_000);
    await expect(withoutPrevious.verify(accessToken)).rejects.toBeInstanceOf(AppError);
  });

  it("rejects unknown scopes inside a validly signed token", async () => {
    const token = await new SignJWT({ scope: "api.root" })
      .setProtectedHeader({ alg: "HS256", kid: "k2" })
      .setIssuer("iss")
      .setAudience("aud")
      .setSubject("c")
      .setIssuedAt(1_000_000)
      .setExpirationTime(1_003_600)
      .sign(secret);
    await expect(new JoseTokenService(settings, () => 1_000_100).verify(token)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
  });

  it("rejects a token without exp", async () => {
    const token = await new SignJWT({ scope: "api.read" })
      .setProtectedHeader({ alg: "HS256", kid: "k2" })
      .setIssuer("iss")
      .setAudience("aud")
      .setSubject("c")
      .setIssuedAt(1)
      .sign(secret);
    await expect(new JoseTokenService(settings, () => 100).verify(token)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
  });
});
