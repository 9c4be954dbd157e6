import { SignJWT, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, newClient, tokenFor } from "./http";
import { BOOTSTRAP, TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_KEY } from "./runtime";

const form = (fields: Record<string, string>): { body: string; headers: Record<string, string> } => ({
  body: new URLSearchParams(fields).toString(),
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
});
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

describe("POST /auth/token", () => {
  it("issues a bearer token for form credentials, with no-store", async () => {
    const reply = await call(
      "POST",
      "/auth/token",
      form({
        grant_type: "client_credentials",
        client_id: BOOTSTRAP.id,
        client_secret: BOOTSTRAP.secret,
        scope: "api.read",
      }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers.get("cache-control")).toBe("no-store");
    expect(reply.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "api.read" });
    expect(reply.body.access_token.split(".")).toHaveLength(3);
    expect(reply.headers.get("x-ratelimit-limit")).not.toBeNull();
  });

  it("accepts HTTP Basic credentials and grants every held scope when scope is omitted", async () => {
    const { body, headers } = form({ grant_type: "client_credentials" });
    const reply = await call("POST", "/auth/token", {
      body,
      headers: { ...headers, Authorization: basic(BOOTSTRAP.id, BOOTSTRAP.secret) },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.scope.split(" ").sort()).toEqual(["api.admin", "api.read", "api.write"]);
  });

  it.each([
    ["wrong secret", { grant_type: "client_credentials", client_id: BOOTSTRAP.id, client_secret: "wrong-secret" }],
    ["unknown client", { grant_type: "client_credentials", client_id: "nobody", client_secret: "whatever-secret" }],
    ["only a client id", { grant_type: "client_credentials", client_id: BOOTSTRAP.id }],
  ])("answers 401 invalid_client without an HTTP challenge for form credentials: %s", async (_name, fields) => {
    const reply = await call("POST", "/auth/token", form(fields));
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    // OAuth client libraries then report the OAuth error itself, not an HTTP authentication failure.
    expect(reply.headers.get("www-authenticate")).toBeNull();
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });

  it.each([
    ["a wrong Basic secret", basic(BOOTSTRAP.id, "wrong-secret")],
    ["an unknown Basic client", basic("nobody", "whatever-secret")],
    ["a malformed Basic header", "Basic !!!"],
    ["Basic without a colon", `Basic ${Buffer.from("no-colon").toString("base64")}`],
  ])("answers 401 invalid_client with WWW-Authenticate: Basic (RFC 6749 §5.2) for %s", async (_name, authorization) => {
    const { body, headers } = form({ grant_type: "client_credentials" });
    const reply = await call("POST", "/auth/token", { body, headers: { ...headers, Authorization: authorization } });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    expect(reply.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });

  it("challenges with Basic when no credentials were sent at all", async () => {
    const reply = await call("POST", "/auth/token", form({ grant_type: "client_credentials" }));
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe("invalid_client");
    expect(reply.headers.get("www-authenticate")).toMatch(/^Basic/);
  });

  it("answers RFC 6749 errors for a bad grant, a missing grant, an unknown scope and mixed credentials", async () => {
    const unsupported = await call(
      "POST",
      "/auth/token",
      form({ grant_type: "password", client_id: BOOTSTRAP.id, client_secret: BOOTSTRAP.secret }),
    );
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe("unsupported_grant_type");

    const missing = await call(
      "POST",
      "/auth/token",
      form({ client_id: BOOTSTRAP.id, client_secret: BOOTSTRAP.secret }),
    );
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("invalid_request");

    const scope = await call(
      "POST",
      "/auth/token",
      form({
        grant_type: "client_credentials",
        client_id: BOOTSTRAP.id,
        client_secret: BOOTSTRAP.secret,
        scope: "api.everything",
      }),
    );
    expect(scope.status).toBe(400);
    expect(scope.body.error).toBe("invalid_scope");

    const { body, headers } = form({
      grant_type: "client_credentials",
      client_id: BOOTSTRAP.id,
      client_secret: BOOTSTRAP.secret,
    });
    const both = await call("POST", "/auth/token", {
      body,
      headers: { ...headers, Authorization: basic(BOOTSTRAP.id, BOOTSTRAP.secret) },
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_request");

    const json = await call("POST", "/auth/token", { body: { grant_type: "client_credentials" } });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe("invalid_request");
  });

  it("refuses a scope the client does not hold", async () => {
    const reader = await newClient(await adminToken(), ["api.read"]);
    const reply = await call(
      "POST",
      "/auth/token",
      form({
        grant_type: "client_credentials",
        client_id: reader.clientId,
        client_secret: reader.clientSecret,
        scope: "api.write",
      }),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("invalid_scope");
  });
});

describe("bearer tokens on the API", () => {
  let admin: string;
  const key = Buffer.from(TEST_JWT_KEY, "base64");
  const forge = (
    claims: Record<string, unknown>,
    options: { alg?: string; kid?: string; exp?: number; iss?: string; aud?: string; sub?: string } = {},
  ) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: "api.read", ...claims })
      .setProtectedHeader({ alg: options.alg ?? "HS256", kid: options.kid ?? "test-1" })
      .setIssuer(options.iss ?? TEST_ISSUER)
      .setAudience(options.aud ?? TEST_AUDIENCE)
      .setSubject(options.sub ?? BOOTSTRAP.id)
      .setIssuedAt(now - 10)
      .setExpirationTime(options.exp ?? now + 600)
      .sign(key);
  };

  beforeAll(async () => {
    admin = await adminToken();
  });

  const expect401 = async (authorization: string | undefined): Promise<void> => {
    const reply = await call(
      "GET",
      "/api/v1/portfolios",
      authorization === undefined ? {} : { headers: { Authorization: authorization } },
    );
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe("UNAUTHORIZED");
    expect(reply.body.error.requestId).toBe(reply.headers.get("x-request-id"));
    expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(reply.headers.get("x-ratelimit-remaining")).not.toBeNull();
  };

  it("accepts a valid token", async () => {
    expect((await call("GET", "/api/v1/portfolios", { token: admin })).status).toBe(200);
    expect((await call("GET", "/api/v1/portfolios", { token: await forge({}) })).status).toBe(200);
  });

  it("401: missing token", () => expect401(undefined));
  it("401: malformed header", () => expect401("Token abc"));
  it("401: not a JWT", () => expect401("Bearer not-a-jwt"));
  it("401: expired", async () => expect401(`Bearer ${await forge({}, { exp: Math.floor(Date.now() / 1000) - 5 })}`));
  it("401: tampered payload", async () => {
    const [h, , s] = admin.split(".");
    const payload = Buffer.from(
      JSON.stringify({
        sub: BOOTSTRAP.id,
        scope: "api.read api.write api.admin",
        iss: TEST_ISSUER,
        aud: TEST_AUDIENCE,
        exp: 4102444800,
        iat: 1,
      }),
    ).toString("base64url");
    await expect401(`Bearer ${h}.${payload}.${s}`);
  });
  it("401: tampered signature", async () => expect401(`Bearer ${admin.slice(0, -4)}AAAA`));
  it("401: wrong algorithm (HS512 with the right key)", async () =>
    expect401(`Bearer ${await forge({}, { alg: "HS512" })}`));
  it("401: alg none", async () => {
    const unsigned = new UnsecuredJWT({ scope: "api.read" })
      .setIssuer(TEST_ISSUER)
      .setAudience(TEST_AUDIENCE)
      .setSubject(BOOTSTRAP.id)
      .setIssuedAt()
      .setExpirationTime("10m")
      .encode();
    await expect401(`Bearer ${unsigned}`);
  });
  it("401: wrong issuer or audience", async () => {
    await expect401(`Bearer ${await forge({}, { iss: "https://someone-else" })}`);
    await expect401(`Bearer ${await forge({}, { aud: "another-api" })}`);
  });
  it("401: unknown key id", async () => expect401(`Bearer ${await forge({}, { kid: "other-key" })}`));
  it("401: token of an unknown client", async () => expect401(`Bearer ${await forge({}, { sub: "ghost-client" })}`));

  it("401: a disabled client's live token stops working, and it gets no new token", async () => {
    const client = await newClient(admin, ["api.read"]);
    expect((await call("GET", "/api/v1/portfolios", { token: client.token })).status).toBe(200);
    const patched = await call("PATCH", `/api/v1/settings/api-clients/${client.clientId}`, {
      token: admin,
      body: { status: "disabled" },
    });
    expect(patched.status).toBe(200);
    await expect401(`Bearer ${client.token}`);
    await expect(tokenFor(client.clientId, client.clientSecret)).rejects.toThrow(/401/);
  });

  it("403: a valid token without the scope", async () => {
    const reader = await newClient(admin, ["api.read"]);
    const write = await call("POST", "/api/v1/portfolios", {
      token: reader.token,
      body: { name: "x", code: "X", clientId: "c", baseCurrency: "EUR" },
    });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("FORBIDDEN");
    const settings = await call("GET", "/api/v1/settings/api-clients", { token: reader.token });
    expect(settings.status).toBe(403);
    const narrowed = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, "api.read");
    expect((await call("GET", "/api/v1/settings/api-clients", { token: narrowed })).status).toBe(403);
  });
});
