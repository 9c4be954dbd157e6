import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosApiClientRepository } from "../../adapters/cosmos/cosmos-api-client-repository";
import { ACCESS_TOKEN_LIFETIME_SECONDS, JoseTokenService } from "../../adapters/jwt/jose-token-service";
import type { Scope } from "../../domain/api-client";
import { hashSecret } from "../../domain/secret-hash";
import type { AccessTokenClaims, TokenService } from "../../ports/token-service";
import { Authenticator } from "./authenticator";

/** The real token service, counting the signatures it checks. */
class CountingTokens implements TokenService {
  verified = 0;
  constructor(private readonly inner: TokenService) {}
  issue(clientId: string, scopes: Scope[]): Promise<{ accessToken: string; expiresIn: number }> {
    return this.inner.issue(clientId, scopes);
  }
  verify(token: string): Promise<AccessTokenClaims> {
    this.verified++;
    return this.inner.verify(token);
  }
}

describe("Authenticator caches (on the Cosmos stand-in, with a fake clock)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let clients: CosmosApiClientRepository;
  let now = Date.parse("2026-03-02T10:00:00.000Z");
  const clock = { now: () => new Date(now) };
  const tokens = (): CountingTokens =>
    new CountingTokens(
      new JoseTokenService(
        { issuer: "ids", audience: "ids-api", current: { kid: "k1", secret: Buffer.alloc(32, 3) } },
        () => Math.floor(now / 1000),
      ),
    );
  let serial = 0;
  const newClient = async (): Promise<string> => {
    const clientId = `cli_auth_${process.pid}_${serial++}`;
    const at = clock.now().toISOString();
    await clients.create({
      clientId,
      name: "Auth test",
      scopes: ["api.read"],
      tier: "standard",
      status: "active",
      createdAt: at,
      updatedAt: at,
      secretHash: await hashSecret("s"),
    });
    return clientId;
  };
  const disable = (clientId: string) => clients.update(clientId, (c) => ({ ...c, status: "disabled" }));
  const bearer = async (service: TokenService, clientId: string): Promise<string> =>
    `Bearer ${(await service.issue(clientId, ["api.read"])).accessToken}`;

  beforeAll(async () => {
    cosmos = await startCosmos();
    clients = new CosmosApiClientRepository(cosmos.db.container("settings"));
  });
  afterAll(async () => cosmos.stop());

  it("checks a token's signature once, trusts it until it expires, then refuses it", async () => {
    const service = tokens();
    const auth = new Authenticator(service, clients, clock, 5);
    const token = await bearer(service, await newClient());
    for (let i = 0; i < 3; i++)
      await expect(auth.authenticate(token)).resolves.toMatchObject({ scopes: ["api.read"], tier: "standard" });
    expect(service.verified).toBe(1);
    now += ACCESS_TOKEN_LIFETIME_SECONDS * 1000 - 1;
    await auth.authenticate(token);
    expect(service.verified).toBe(1);
    now += 1;
    await expect(auth.authenticate(token)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: "The access token has expired",
    });
    expect(service.verified).toBe(2);
  });

  it("a client disabled elsewhere keeps its tokens for cacheSeconds; disabled here (forget) they stop at once", async () => {
    const service = tokens();
    const auth = new Authenticator(service, clients, clock, 5);
    const elsewhere = await newClient();
    const token = await bearer(service, elsewhere);
    await auth.authenticate(token);
    await disable(elsewhere);
    now += 4_999;
    await expect(auth.authenticate(token)).resolves.toMatchObject({ clientId: elsewhere });
    now += 1;
    await expect(auth.authenticate(token)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: "The API client is disabled or unknown",
    });

    const here = await newClient();
    const other = await bearer(service, here);
    await auth.authenticate(other);
    await disable(here);
    auth.forget(here);
    await expect(auth.authenticate(other)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: "The API client is disabled or unknown",
    });
  });

  it("with cacheSeconds 0 every request reads the client", async () => {
    const service = tokens();
    const auth = new Authenticator(service, clients, clock, 0);
    const clientId = await newClient();
    const token = await bearer(service, clientId);
    await auth.authenticate(token);
    await disable(clientId);
    await expect(auth.authenticate(token)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("a full token cache lets go of the least recently used token, not of every token", async () => {
    const service = tokens();
    const auth = new Authenticator(service, clients, clock, 60);
    const clientId = await newClient();
    const many = await Promise.all(Array.from({ length: 10_001 }, () => bearer(service, clientId)));
    const [busy, idle] = [many[0] ?? "", many[1] ?? ""];
    // 10,000 tokens fill the cache; the busy one is used again before the 10,001st arrives.
    for (const token of many.slice(0, 10_000)) await auth.authenticate(token);
    await auth.authenticate(busy);
    expect(service.verified).toBe(10_000);
    await auth.authenticate(many[10_000] ?? "");
    expect(service.verified).toBe(10_001);
    await auth.authenticate(busy);
    expect(service.verified).toBe(10_001);
    await auth.authenticate(idle);
    expect(service.verified).toBe(10_002);
  });
});
