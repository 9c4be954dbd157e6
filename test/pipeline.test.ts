import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, newClient } from "./http";

describe("HTTP pipeline", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  it("echoes a safe X-Request-Id and generates one otherwise", async () => {
    const echoed = await call("GET", "/api/v1/portfolios", { token, headers: { "X-Request-Id": "abc-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("abc-123");
    const unsafe = await call("GET", "/api/v1/portfolios/none", { token, headers: { "X-Request-Id": "<script>" } });
    expect(unsafe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(unsafe.body.error.requestId).toBe(unsafe.headers.get("x-request-id"));
  });

  it("puts the rate-limit headers on every response", async () => {
    // Each reset is the end of the window its request fell in: after the requests started, not
    // necessarily after they all answered (a window may end while a loaded machine answers them).
    const started = Date.now() / 1000;
    for (const reply of [
      await call("GET", "/api/v1/portfolios", { token }),
      await call("GET", "/api/v1/portfolios"),
      await call("GET", "/api/v1/unknown"),
      await call("GET", "/api/v1/openapi.json"),
      await call("POST", "/auth/token", {
        body: "grant_type=x",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
    ]) {
      expect(Number(reply.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0);
      expect(Number(reply.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
      const reset = Number(reply.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThan(Math.floor(started));
      expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 86_400 + 1);
    }
  });

  it("404 NOT_FOUND for unknown routes, in the error shape", async () => {
    for (const path of ["/api/v1/nothing", "/api/v2/portfolios", "/nothing", "/api/v1/portfolios/a/b/c"]) {
      const reply = await call("GET", path, { token });
      expect(reply.status).toBe(404);
      expect(reply.body.error).toMatchObject({
        code: "NOT_FOUND",
        message: expect.any(String),
        requestId: expect.any(String),
      });
    }
  });

  it("leaves the Functions host's own paths to the host: the catch-all answers neither /runtime/webhooks/… (Event Grid's blob events) nor /admin/…", async () => {
    for (const [method, path] of [
      ["POST", "/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest"],
      ["GET", "/runtime/webhooks/eventgrid"],
      ["GET", "/admin/host/status"],
      ["GET", "/"],
    ] as const) {
      const reply = await call(method, path);
      expect(reply.status, path).toBe(404);
      // The local host's own 404 (an empty body), not the API's error object.
      expect(reply.text, path).toBe("");
    }
  });

  it("405 for a wrong method, with Allow", async () => {
    const reply = await call("DELETE", "/api/v1/portfolios", { token });
    expect(reply.status).toBe(405);
    expect(reply.body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect(reply.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "POST"]);
    const put = await call("PUT", "/api/v1/portfolios/some-id", { token, body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "PATCH"]);
    expect((await call("GET", "/auth/token")).status).toBe(405);
  });

  it("400 for a body that is not JSON or not an object", async () => {
    for (const body of ["{not json", "[1,2]", "42", "null", ""]) {
      const reply = await call("POST", "/api/v1/portfolios", {
        token,
        body,
        headers: { "Content-Type": "application/json" },
      });
      expect(reply.status, body).toBe(400);
      expect(reply.body.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("413 for a body over the limit", async () => {
    const reply = await call("POST", "/api/v1/portfolios", { token, body: { name: "x".repeat(1_100_000) } });
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("never answers 500 to odd client input", async () => {
    const odd = [
      await call("GET", "/api/v1/portfolios/%E0%A4%A", { token }),
      await call("GET", `/api/v1/portfolios/${"x".repeat(300)}`, { token }),
      await call("GET", "/api/v1/portfolios?page=1e400&pageSize=-0", { token }),
      await call("GET", "/api/v1/portfolios?clientId=", { token }),
      await call("POST", "/api/v1/portfolios", {
        token,
        body: { name: { $ne: 1 }, code: ["a"], clientId: null, baseCurrency: 1 },
      }),
      await call("POST", "/api/v1/portfolios", {
        token,
        body: '{"__proto__": {"admin": true}}',
        headers: { "Content-Type": "application/json" },
      }),
      await call("PATCH", "/api/v1/portfolios/x", {
        token,
        body: "\u0000",
        headers: { "Content-Type": "application/json" },
      }),
      await call("POST", "/auth/token", {
        body: "%%%",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      await call("POST", "/auth/token", {
        body: "grant_type=client_credentials",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Basic !!!" },
      }),
      await call("GET", "/api/v1/portfolios", { headers: { Authorization: "Bearer a.b.c" } }),
    ];
    for (const reply of odd) {
      expect(reply.status, reply.text).toBeGreaterThanOrEqual(400);
      expect(reply.status, reply.text).toBeLessThan(500);
    }
  });

  it("429 RATE_LIMIT_EXCEEDED with Retry-After once a standard client passes 60 requests a minute", async () => {
    // 61 requests in one minute window. Should a window end during the burst (the reset header
    // changes), the burst is repeated with a fresh client, in the new window, instead of waiting.
    let statuses: number[] = [];
    let last!: Awaited<ReturnType<typeof call>>;
    for (let attempt = 0; attempt < 3; attempt++) {
      const client = await newClient(token, ["api.read"], "standard");
      const replies = [];
      for (let i = 0; i < 61; i++)
        replies.push(await call("GET", "/api/v1/portfolios?pageSize=1", { token: client.token }));
      statuses = replies.map((r) => r.status);
      last = replies[60] ?? last;
      expect(replies[0]?.headers.get("x-ratelimit-limit")).toBe("60");
      expect(replies[0]?.headers.get("x-ratelimit-remaining")).toBe("59");
      if (new Set(replies.map((r) => r.headers.get("x-ratelimit-reset"))).size === 1) break;
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    const retryAfter = Number(last.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    // Another client is not affected.
    expect((await call("GET", "/api/v1/portfolios?pageSize=1", { token })).status).toBe(200);
  });
});
