import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, tokenFor } from "./http";

describe("System Settings › API clients", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await adminToken();
  });

  it("creates a client, shows the secret once, and the secret works", async () => {
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token: admin,
      body: { name: "CRM feed", scopes: ["api.read"], tier: "standard" },
    });
    expect(created.status).toBe(201);
    const client = created.body.data;
    expect(client).toMatchObject({ name: "CRM feed", scopes: ["api.read"], tier: "standard", status: "active" });
    expect(client.clientSecret).toMatch(/^sec_/);
    expect(created.headers.get("location")).toBe(`/api/v1/settings/api-clients/${client.clientId}`);
    expect(created.headers.get("cache-control")).toBe("no-store");

    const fetched = await call("GET", `/api/v1/settings/api-clients/${client.clientId}`, { token: admin });
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).not.toHaveProperty("clientSecret");
    expect(fetched.body.data).not.toHaveProperty("secretHash");
    expect(fetched.text).not.toContain(client.clientSecret);

    const list = await call("GET", "/api/v1/settings/api-clients?pageSize=200", { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { clientId: string }) => c.clientId)).toContain(client.clientId);
    expect(list.text).not.toContain("secretHash");
    expect(list.body.pagination).toMatchObject({ page: 1, pageSize: 200 });

    expect(await tokenFor(client.clientId, client.clientSecret)).toBeTruthy();
  });

  it("defaults the tier to standard", async () => {
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token: admin,
      body: { name: "Portal", scopes: ["api.read"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.tier).toBe("standard");
  });

  it("patches scopes, tier and status", async () => {
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token: admin,
      body: { name: "BI", scopes: ["api.read"] },
    });
    const id = created.body.data.clientId;
    const patched = await call("PATCH", `/api/v1/settings/api-clients/${id}`, {
      token: admin,
      body: { scopes: ["api.read", "api.write"], tier: "premium", name: "BI tool" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      clientId: id,
      name: "BI tool",
      scopes: ["api.read", "api.write"],
      tier: "premium",
      status: "active",
    });
    const token = await tokenFor(id, created.body.data.clientSecret, "api.write");
    expect(token).toBeTruthy();
  });

  it("rotates the secret: the old one stops working, the new one works", async () => {
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token: admin,
      body: { name: "Rotating", scopes: ["api.read"] },
    });
    const { clientId, clientSecret } = created.body.data;
    const rotated = await call("POST", `/api/v1/settings/api-clients/${clientId}/rotate-secret`, { token: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.clientSecret).not.toBe(clientSecret);
    await expect(tokenFor(clientId, clientSecret)).rejects.toThrow(/401/);
    expect(await tokenFor(clientId, rotated.body.data.clientSecret)).toBeTruthy();
  });

  it("answers 404 for an unknown client and 422 for bad bodies", async () => {
    expect((await call("GET", "/api/v1/settings/api-clients/cli_missing", { token: admin })).status).toBe(404);
    expect(
      (await call("PATCH", "/api/v1/settings/api-clients/cli_missing", { token: admin, body: { name: "x" } })).status,
    ).toBe(404);
    expect(
      (await call("POST", "/api/v1/settings/api-clients/cli_missing/rotate-secret", { token: admin })).status,
    ).toBe(404);

    const bad = await call("POST", "/api/v1/settings/api-clients", {
      token: admin,
      body: { name: "", scopes: ["api.root"], tier: "gold" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(["name", "scopes[0]", "tier"]);

    const none = await call("POST", "/api/v1/settings/api-clients", { token: admin, body: { name: "x", scopes: [] } });
    expect(none.status).toBe(422);
    const empty = await call("PATCH", "/api/v1/settings/api-clients/local", { token: admin, body: {} });
    expect(empty.status).toBe(422);
    const status = await call("POST", "/api/v1/settings/api-clients", {
      token: admin,
      body: { name: "x", scopes: ["api.read"], extra: 1 },
    });
    expect(status.status).toBe(422);
    expect(status.body.error.details[0].field).toBe("body");
  });
});
