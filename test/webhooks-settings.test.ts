import { randomBytes } from "node:crypto";
import { CosmosClient } from "@azure/cosmos";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, cosmosEndpoint, newClient, useOwnRuntime, type Reply } from "./http";
import { COSMOS_KEY } from "./investment-fixtures";
import { newWebhookSecret, WebhookReceiver, type Received } from "./webhook-receiver";

// The default test runtime allows private networks, which is what lets loopback receivers work; the
// SSRF refusals with private networks NOT allowed are in shared/app/webhooks.test.ts (in-process, so
// no request can leave the machine) and shared/adapters/http/*.test.ts.
useOwnRuntime();

const BASE = "/api/v1/settings/webhooks";
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe("System settings › webhooks (real receivers, signatures checked with standardwebhooks)", () => {
  let token: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    token = await adminToken();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.down()));
  });

  async function receiver(answer?: WebhookReceiver["answer"]): Promise<WebhookReceiver> {
    const r = await new WebhookReceiver().up();
    if (answer !== undefined) r.answer = answer;
    receivers.push(r);
    return r;
  }

  const create = (body: unknown): Promise<Reply> => call("POST", BASE, { token, body });
  const total = async (): Promise<number> =>
    (await call("GET", `${BASE}?pageSize=200`, { token })).body.pagination.totalItems as number;
  const verify = (secret: string, r: Received): unknown =>
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);

  it("creates a webhook after the URL accepted a signed webhook.test, and shows the generated secret once", async () => {
    const r = await receiver();
    const reply = await create({
      url: r.url,
      events: ["portfolio.valued", "exception.created"],
      description: "BI sync",
    });
    expect(reply.status, reply.text).toBe(201);
    const data = reply.body.data;
    expect(data).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: r.url,
      events: ["portfolio.valued", "exception.created"],
      description: "BI sync",
      status: "enabled",
      secret: expect.stringMatching(/^whsec_/),
      createdAt: iso,
      updatedAt: iso,
    });
    expect(reply.headers.get("location")).toBe(`${BASE}/${data.id}`);
    expect(reply.headers.get("cache-control")).toBe("no-store");

    expect(r.received).toHaveLength(1);
    const test = r.received[0]!;
    expect(verify(data.secret, test)).toEqual({
      id: test.headers["webhook-id"],
      event: "webhook.test",
      timestamp: iso,
      data: { webhookId: data.id },
    });
    expect(test.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);

    const got = await call("GET", `${BASE}/${data.id}`, { token });
    expect(got.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = data;
    expect(got.body.data).toEqual(withoutSecret);
    const list = await call("GET", BASE, { token });
    expect(list.body.data).toContainEqual(withoutSecret);
    for (const text of [got.text, list.text]) {
      expect(text).not.toContain("whsec_");
      expect(text).not.toContain("secret");
    }
  });

  it("signs the test event with the secret the client supplied, and stores it encrypted", async () => {
    const r = await receiver();
    const secret = newWebhookSecret();
    r.secrets = [secret];
    const reply = await create({ url: r.url, events: ["transaction.settled"], secret });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.data.secret).toBe(secret);
    expect(r.received[0]?.verifiedWith).toEqual([secret]);

    const client = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { resource } = await client
      .database("investment-data")
      .container("settings")
      .item(reply.body.data.id, "webhook")
      .read();
    expect(resource).toMatchObject({ id: reply.body.data.id, kind: "webhook", url: r.url });
    const stored = JSON.stringify(resource);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice("whsec_".length));
    expect(stored).not.toContain(Buffer.from(secret.slice(6), "base64").toString("hex"));
  });

  it.each([
    ["a 500", { status: 500 }, /the endpoint answered 500/],
    [
      "a redirect",
      { status: 302, headers: { Location: "https://example.com/" } },
      /answered 302 \(a redirect, which is not followed\)/,
    ],
    ["410 Gone", { status: 410 }, /the endpoint answered 410/],
  ])("refuses a URL answering %s with 422 on url and saves nothing", async (_what, answer, message) => {
    const r = await receiver(() => answer);
    const before = await total();
    const reply = await create({ url: r.url, events: ["portfolio.valued"] });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.error.code).toBe("VALIDATION_ERROR");
    expect(reply.body.error.details).toEqual([{ field: "url", message: expect.stringMatching(message) }]);
    expect(r.received).toHaveLength(1); // the redirect was not followed
    expect(await total()).toBe(before);
  });

  it("refuses a URL where nothing listens with 422 on url", async () => {
    const r = await receiver();
    const url = r.url;
    await r.down();
    const reply = await create({ url, events: ["portfolio.valued"] });
    expect(reply.status).toBe(422);
    expect(reply.body.error.details).toEqual([
      { field: "url", message: expect.stringMatching(/connection was refused/) },
    ]);
  });

  it.each([
    ["no events", { url: "https://example.com/", events: [] }, "events"],
    ["an unknown event", { url: "https://example.com/", events: ["portfolio.deleted"] }, "events[0]"],
    ["a repeated event", { url: "https://example.com/", events: ["portfolio.valued", "portfolio.valued"] }, "events"],
    [
      "a secret without whsec_",
      { url: "https://example.com/", events: ["portfolio.valued"], secret: randomBytes(32).toString("base64") },
      "secret",
    ],
    [
      "a secret too short",
      {
        url: "https://example.com/",
        events: ["portfolio.valued"],
        secret: `whsec_${randomBytes(16).toString("base64")}`,
      },
      "secret",
    ],
    ["a URL that is not one", { url: "hooks", events: ["portfolio.valued"] }, "url"],
    ["an ftp URL", { url: "ftp://example.com/", events: ["portfolio.valued"] }, "url"],
    ["an unknown field", { url: "https://example.com/", events: ["portfolio.valued"], status: "enabled" }, "body"],
    ["no url", { events: ["portfolio.valued"] }, "url"],
  ])("answers a body with %s with 422 naming the field, sending nothing", async (_what, body, field) => {
    const reply = await create(body);
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.error.code).toBe("VALIDATION_ERROR");
    expect(reply.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it("answers malformed requests, unknown ids and other scopes in the error shape", async () => {
    expect(
      (await call("POST", BASE, { token, body: "not json", headers: { "Content-Type": "application/json" } })).status,
    ).toBe(400);
    expect((await call("POST", BASE, { token, body: "[]" })).status).toBe(400);
    const missing = await call("GET", `${BASE}/wh_missing`, { token });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
    for (const [method, path] of [
      ["GET", `${BASE}/bad%25id`],
      ["PATCH", `${BASE}/%20x`],
      ["DELETE", `${BASE}/a%5Cb`],
      ["POST", `${BASE}/a%23b/rotate-secret`],
    ] as const) {
      const reply = await call(method, path, { token, ...(method === "PATCH" ? { body: { description: "x" } } : {}) });
      expect(reply.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(reply.status, `${method} ${path}`).toBeLessThan(500);
      expect(reply.body.error.code).toMatch(/INVALID_REQUEST|NOT_FOUND/);
    }
    expect((await call("PATCH", `${BASE}/wh_missing`, { token, body: { description: "x" } })).status).toBe(404);
    expect((await call("DELETE", `${BASE}/wh_missing`, { token })).status).toBe(404);
    expect((await call("POST", `${BASE}/wh_missing/rotate-secret`, { token })).status).toBe(404);
    expect((await call("GET", `${BASE}?pageSize=500`, { token })).status).toBe(400);
    const deep = await call("GET", `${BASE}?page=51&pageSize=200`, { token });
    expect(deep.status).toBe(400);
    expect(deep.body.error.details).toEqual([{ field: "page", message: expect.any(String) }]);
    const reader = await newClient(token, ["api.read", "api.write"]);
    expect((await call("GET", BASE, { token: reader.token })).status).toBe(403);
    expect(
      (
        await call("POST", BASE, {
          token: reader.token,
          body: { url: "https://example.com/", events: ["portfolio.valued"] },
        })
      ).status,
    ).toBe(403);
    expect((await call("GET", BASE)).status).toBe(401);
  });

  it("PATCH re-verifies a new URL, keeps the old one when the new one fails, and changes the other fields without a test", async () => {
    const first = await receiver();
    const secret = newWebhookSecret();
    const created = (await create({ url: first.url, events: ["portfolio.valued"], secret })).body.data;
    const id = created.id as string;

    const failing = await receiver(() => ({ status: 503 }));
    const refused = await call("PATCH", `${BASE}/${id}`, { token, body: { url: failing.url } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([{ field: "url", message: expect.stringMatching(/answered 503/) }]);
    expect((await call("GET", `${BASE}/${id}`, { token })).body.data.url).toBe(first.url);

    const second = await receiver();
    second.secrets = [secret];
    const moved = await call("PATCH", `${BASE}/${id}`, { token, body: { url: second.url } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ id, url: second.url, events: ["portfolio.valued"] });
    expect(moved.body.data).not.toHaveProperty("secret");
    expect(second.received).toHaveLength(1);
    expect(second.received[0]?.verifiedWith).toEqual([secret]);
    expect(second.received[0]?.envelope).toMatchObject({ event: "webhook.test", data: { webhookId: id } });

    const changed = await call("PATCH", `${BASE}/${id}`, {
      token,
      body: { events: ["refresh_job.completed", "refresh_job.failed"], description: "jobs", status: "disabled" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      events: ["refresh_job.completed", "refresh_job.failed"],
      description: "jobs",
      status: "disabled",
    });
    expect(changed.body.data.updatedAt >= created.updatedAt).toBe(true);
    expect(second.received).toHaveLength(1); // no new URL, no test event
    expect(
      (await call("PATCH", `${BASE}/${id}`, { token, body: { status: "enabled", description: null } })).body.data,
    ).toMatchObject({ status: "enabled", description: null });

    expect((await call("PATCH", `${BASE}/${id}`, { token, body: {} })).status).toBe(422);
    expect((await call("PATCH", `${BASE}/${id}`, { token, body: { events: ["nope"] } })).status).toBe(422);
    expect((await call("PATCH", `${BASE}/${id}`, { token, body: { secret: newWebhookSecret() } })).status).toBe(422);
  });

  it("rotates the secret: shown once, and the test event then carries both signatures", async () => {
    const r = await receiver();
    const created = (await create({ url: r.url, events: ["portfolio.valued"] })).body.data;
    const rotated = await call("POST", `${BASE}/${created.id}/rotate-secret`, { token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.data).toMatchObject({ id: created.id, url: r.url, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.data.secret).not.toBe(created.secret);
    expect((await call("GET", `${BASE}/${created.id}`, { token })).text).not.toContain("whsec_");

    // POST {id}/test (the delivery side) signs with the directory's secrets: new and old for 24 h.
    r.secrets = [rotated.body.data.secret, created.secret];
    const test = await call("POST", `${BASE}/${created.id}/test`, { token });
    expect(test.status, test.text).toBe(200);
    const last = r.received.at(-1)!;
    expect(String(last.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(last.verifiedWith.sort()).toEqual([rotated.body.data.secret, created.secret].sort());
  });

  it("deletes a webhook (204), after which it is gone", async () => {
    const r = await receiver();
    const id = (await create({ url: r.url, events: ["portfolio.valued"] })).body.data.id as string;
    const deleted = await call("DELETE", `${BASE}/${id}`, { token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await call("GET", `${BASE}/${id}`, { token })).status).toBe(404);
    expect((await call("DELETE", `${BASE}/${id}`, { token })).status).toBe(404);
    expect(
      (await call("GET", `${BASE}?pageSize=200`, { token })).body.data.map((w: { id: string }) => w.id),
    ).not.toContain(id);
  });

  it("pages the list", async () => {
    const r = await receiver();
    for (let i = 0; i < 3; i++) expect((await create({ url: r.url, events: ["exception.created"] })).status).toBe(201);
    const all = await total();
    const page = await call("GET", `${BASE}?page=2&pageSize=2`, { token });
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ page: 2, pageSize: 2, totalItems: all, totalPages: Math.ceil(all / 2) });
    expect(page.body.data).toHaveLength(2);
  });
});
