import { generateKeyPairSync, randomUUID } from "node:crypto";
import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { adminToken, call, cosmosEndpoint, newClient, type Reply } from "./http";
import { custodianPositionsFeed } from "./feed-fixtures";
import { COSMOS_KEY } from "./investment-fixtures";
import { startSftpTarget } from "./sftp-target";
import { newWebhookSecret, WebhookReceiver } from "./webhook-receiver";

const AUDIT = "/api/v1/settings/audit";
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

interface Entry {
  id: string;
  at: string;
  actor: string;
  requestId: string;
  action: string;
  resource: { type: string; id: string; name: string };
  changes: { field: string; from: unknown; to: unknown }[];
}

/**
 * The settings audit trail as an auditor reads it: each kind of settings item changed over HTTP by an
 * API client of its own (so that other test files' changes on the shared runtime do not mix in), each
 * request with an X-Request-Id the test chose.
 */
describe("System settings › audit trail", () => {
  let admin: { clientId: string; token: string };
  const secrets: string[] = [];
  const receiver = new WebhookReceiver();

  const change = async (method: string, path: string, body?: unknown): Promise<Reply & { requestId: string }> => {
    const requestId = `audit-test-${randomUUID()}`;
    const reply = await call(method, path, {
      token: admin.token,
      headers: { "X-Request-Id": requestId },
      ...(body !== undefined ? { body } : {}),
    });
    return { ...reply, requestId };
  };
  const trail = async (query: string): Promise<{ reply: Reply; entries: Entry[] }> => {
    const reply = await call("GET", `${AUDIT}?actor=${admin.clientId}&pageSize=200&${query}`, { token: admin.token });
    expect(reply.status, reply.text).toBe(200);
    return { reply, entries: reply.body.data as Entry[] };
  };
  const entryOf = async (requestId: string): Promise<Entry> => {
    const { entries } = await trail("");
    const found = entries.filter((e) => e.requestId === requestId);
    expect(found, `one entry for ${requestId}`).toHaveLength(1);
    return found[0] as Entry;
  };
  const changed = (entry: Entry, field: string): { from: unknown; to: unknown } | undefined => {
    const c = entry.changes.find((x) => x.field === field);
    return c === undefined ? undefined : { from: c.from, to: c.to };
  };
  const redacted = { from: "(redacted)", to: "(redacted)" };

  beforeAll(async () => {
    const bootstrap = await adminToken();
    const client = await newClient(bootstrap, ["api.read", "api.write", "api.admin"]);
    admin = { clientId: client.clientId, token: client.token };
    secrets.push(client.clientSecret);
    await receiver.up();
  });
  afterAll(async () => {
    await receiver.down();
  });

  it("records each change of an API client: who, which request, from what to what, the secret redacted", async () => {
    const created = await change("POST", "/api/v1/settings/api-clients", { name: "CRM", scopes: ["api.read"] });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.clientId as string;
    secrets.push(created.body.data.clientSecret);
    const entry = await entryOf(created.requestId);
    expect(entry).toMatchObject({
      id: expect.any(String),
      at: iso,
      actor: admin.clientId,
      requestId: created.requestId,
      action: "created",
      resource: { type: "api-client", id, name: "CRM" },
    });
    expect(changed(entry, "scopes")).toEqual({ from: null, to: ["api.read"] });
    expect(changed(entry, "clientSecret")).toEqual({ from: null, to: "(redacted)" });

    const patched = await change("PATCH", `/api/v1/settings/api-clients/${id}`, { name: "CRM sync", tier: "premium" });
    expect(patched.status, patched.text).toBe(200);
    const update = await entryOf(patched.requestId);
    expect(update.action).toBe("updated");
    expect(update.changes).toEqual(
      expect.arrayContaining([
        { field: "name", from: "CRM", to: "CRM sync" },
        { field: "tier", from: "standard", to: "premium" },
      ]),
    );
    expect(update.changes.map((c) => c.field)).not.toContain("updatedAt");

    const disabled = await change("PATCH", `/api/v1/settings/api-clients/${id}`, { status: "disabled" });
    expect(disabled.status, disabled.text).toBe(200);
    expect(await entryOf(disabled.requestId)).toMatchObject({
      action: "disabled",
      changes: [{ field: "status", from: "active", to: "disabled" }],
    });

    const rotated = await change("POST", `/api/v1/settings/api-clients/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    secrets.push(rotated.body.data.clientSecret);
    expect(await entryOf(rotated.requestId)).toMatchObject({
      action: "rotated",
      changes: [{ field: "clientSecret", ...redacted }],
    });
  });

  it("records webhooks: the signing secret (given, generated, rotated) never appears", async () => {
    const own = newWebhookSecret();
    secrets.push(own);
    const created = await change("POST", "/api/v1/settings/webhooks", {
      url: receiver.url,
      events: ["portfolio.valued"],
      description: "BI",
      secret: own,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const entry = await entryOf(created.requestId);
    expect(entry).toMatchObject({ action: "created", resource: { type: "webhook", id, name: receiver.url } });
    expect(changed(entry, "secret")).toEqual({ from: null, to: "(redacted)" });

    const patched = await change("PATCH", `/api/v1/settings/webhooks/${id}`, {
      events: ["portfolio.valued", "transaction.settled"],
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await entryOf(patched.requestId)).changes).toEqual([
      { field: "events", from: ["portfolio.valued"], to: ["portfolio.valued", "transaction.settled"] },
    ]);

    const rotated = await change("POST", `/api/v1/settings/webhooks/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    secrets.push(rotated.body.data.secret);
    const rotation = await entryOf(rotated.requestId);
    expect(rotation.action).toBe("rotated");
    expect(changed(rotation, "secret")).toEqual(redacted);

    const deleted = await change("DELETE", `/api/v1/settings/webhooks/${id}`);
    expect(deleted.status).toBe(204);
    const gone = await entryOf(deleted.requestId);
    expect(gone).toMatchObject({ action: "deleted", resource: { type: "webhook", id } });
    expect(changed(gone, "url")).toEqual({ from: receiver.url, to: null });
    expect(changed(gone, "secret")).toEqual({ from: "(redacted)", to: null });
  });

  it("records feeds: the SFTP password is never shown, its rotation is", async () => {
    const created = await change("POST", "/api/v1/settings/feeds", { ...custodianPositionsFeed, name: "audited feed" });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    secrets.push(created.body.data.sftp.password);
    expect(await entryOf(created.requestId)).toMatchObject({ action: "created", resource: { type: "feed", id } });

    const paused = await change("PATCH", `/api/v1/settings/feeds/${id}`, { status: "paused" });
    expect(paused.status, paused.text).toBe(200);
    expect(await entryOf(paused.requestId)).toMatchObject({
      action: "disabled",
      changes: [{ field: "status", from: created.body.data.status, to: "paused" }],
    });

    const rotated = await change("POST", `/api/v1/settings/feeds/${id}/rotate-credentials`);
    expect(rotated.status, rotated.text).toBe(200);
    secrets.push(rotated.body.data.sftp.password);
    const rotation = await entryOf(rotated.requestId);
    expect(rotation.action).toBe("rotated");
    expect(changed(rotation, "sftp.password")).toEqual(redacted);
  });

  it("records exports: SFTP passwords and private keys are redacted, the rest shows from and to", async () => {
    const password = `pw-${randomUUID()}`;
    const privateKey = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    secrets.push(password, privateKey);
    const destination = { type: "sftp", host: "127.0.0.1", port: 2222, username: "ids", path: "/out" };
    const created = await change("POST", "/api/v1/settings/exports", {
      name: "audited export",
      dataType: "securities",
      format: "csv",
      schedule: { frequency: "daily", time: "03:00" },
      destination: { ...destination, password },
      fileName: "securities_{exportId}.csv",
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const entry = await entryOf(created.requestId);
    expect(changed(entry, "destination.host")).toEqual({ from: null, to: "127.0.0.1" });
    expect(changed(entry, "destination.password")).toEqual({ from: null, to: "(redacted)" });

    const newPassword = `pw-${randomUUID()}`;
    secrets.push(newPassword);
    const patched = await change("PATCH", `/api/v1/settings/exports/${id}`, {
      name: "audited export (EU)",
      destination: { ...destination, port: 2223, password: newPassword },
    });
    expect(patched.status, patched.text).toBe(200);
    const update = await entryOf(patched.requestId);
    expect(update.action).toBe("updated");
    expect(update.changes).toEqual(
      expect.arrayContaining([
        { field: "name", from: "audited export", to: "audited export (EU)" },
        { field: "destination.port", from: 2222, to: 2223 },
        { field: "destination.password", ...redacted },
      ]),
    );

    const keyed = await change("POST", "/api/v1/settings/exports", {
      name: "audited export with a key",
      dataType: "securities",
      format: "csv",
      schedule: { frequency: "daily", time: "04:00" },
      destination: { ...destination, privateKey },
      fileName: "securities_{exportId}.csv",
    });
    expect(keyed.status, keyed.text).toBe(201);
    expect(changed(await entryOf(keyed.requestId), "destination.privateKey")).toEqual({ from: null, to: "(redacted)" });
  });

  it("records an export's Run now (action run: who, which request, the export, the run started); an unknown export's writes nothing", async () => {
    const target = await startSftpTarget({ users: [{ username: "ids", password: "run-now-password" }] });
    try {
      const created = await change("POST", "/api/v1/settings/exports", {
        name: "audited run",
        dataType: "securities",
        format: "csv",
        schedule: { frequency: "daily", time: "05:00" },
        destination: {
          type: "sftp",
          host: "127.0.0.1",
          port: target.port,
          username: "ids",
          password: "run-now-password",
          path: "/",
        },
        fileName: "securities_{exportId}.csv",
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.id as string;
      const run = await change("POST", `/api/v1/settings/exports/${id}/run`);
      expect(run.status, run.text).toBe(202);
      const entry = await entryOf(run.requestId);
      expect(entry).toEqual({
        id: expect.any(String),
        at: iso,
        actor: admin.clientId,
        requestId: run.requestId,
        action: "run",
        resource: { type: "export", id, name: "audited run" },
        changes: [{ field: "run", from: null, to: run.body.data.id }],
      });
      // The export's own entries: the run is there, newest first; the definition is as it was.
      const own = await trail(`resourceType=export&resourceId=${id}`);
      expect(own.entries.map((e) => e.action)).toEqual(["run", "created"]);
      const after = await call("GET", `/api/v1/settings/exports/${id}`, { token: admin.token });
      expect(after.body.data.updatedAt).toBe(created.body.data.updatedAt);

      // The run delivers before its server goes away (a failing run would retry on the shared runtime).
      await vi.waitFor(
        async () => {
          const runs = await call("GET", `/api/v1/settings/exports/${id}/runs`, { token: admin.token });
          expect(runs.body.data[0]?.status).toBe("succeeded");
        },
        { timeout: 30_000, interval: 200 },
      );

      const unknown = await change("POST", "/api/v1/settings/exports/ex_unknown/run");
      expect(unknown.status).toBe(404);
      expect((await trail("")).entries.filter((e) => e.requestId === unknown.requestId)).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it("records blob sources and replica logins, the login's password rotation redacted", async () => {
    const feed = await change("POST", "/api/v1/settings/feeds", { ...custodianPositionsFeed, name: "blob feed" });
    expect(feed.status, feed.text).toBe(201);
    secrets.push(feed.body.data.sftp.password);
    const blobs = BlobServiceClient.fromConnectionString(inject("storageConnectionString"));
    const container = blobs.getContainerClient(`audit-${Date.now().toString(36)}`);
    await container.create();
    const source = await change("POST", "/api/v1/settings/blob-sources", {
      name: "custodian drop",
      containerUrl: `${blobs.url.replace(/\/$/, "")}/${container.containerName}`,
      prefix: "in/",
      filePattern: "custodian-positions-*.csv",
      feedId: feed.body.data.id,
      schedule: { every: "1d", at: "06:30" },
    });
    expect(source.status, source.text).toBe(201);
    const sourceId = source.body.data.id as string;
    const renamed = await change("PATCH", `/api/v1/settings/blob-sources/${sourceId}`, { name: "custodian drop (EU)" });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await entryOf(renamed.requestId)).toMatchObject({
      action: "updated",
      resource: { type: "blob-source", id: sourceId, name: "custodian drop (EU)" },
      changes: [{ field: "name", from: "custodian drop", to: "custodian drop (EU)" }],
    });

    const login = await change("POST", "/api/v1/settings/replica/logins", { name: "Power BI" });
    expect(login.status, login.text).toBe(201);
    const loginId = login.body.data.id as string;
    secrets.push(login.body.data.password);
    expect(await entryOf(login.requestId)).toMatchObject({
      action: "created",
      resource: { type: "replica-login", id: loginId, name: "Power BI" },
    });
    const limited = await change("PATCH", `/api/v1/settings/replica/logins/${loginId}`, { connectionLimit: 3 });
    expect(limited.status, limited.text).toBe(200);
    expect((await entryOf(limited.requestId)).changes).toEqual([
      { field: "connectionLimit", from: login.body.data.connectionLimit, to: 3 },
    ]);
    const rotated = await change("POST", `/api/v1/settings/replica/logins/${loginId}/rotate-password`);
    expect(rotated.status, rotated.text).toBe(200);
    secrets.push(rotated.body.data.password);
    expect(await entryOf(rotated.requestId)).toMatchObject({
      action: "rotated",
      changes: [{ field: "password", ...redacted }],
    });

    // An item's own entries: one partition's read, newest first.
    const own = await trail(`resourceType=blob-source&resourceId=${sourceId}`);
    expect(own.entries.map((e) => e.action)).toEqual(["updated", "created"]);
    expect(own.entries.every((e) => e.resource.id === sourceId)).toBe(true);
  });

  it("writes nothing for a refused change", async () => {
    const before = (await trail("")).reply.body.pagination.totalItems as number;
    const refusedCreate = await change("POST", "/api/v1/settings/api-clients", { name: "x", scopes: ["api.root"] });
    expect(refusedCreate.status).toBe(422);
    const created = await change("POST", "/api/v1/settings/api-clients", { name: "kept", scopes: ["api.read"] });
    secrets.push(created.body.data.clientSecret);
    const id = created.body.data.clientId as string;
    const refusedPatch = await change("PATCH", `/api/v1/settings/api-clients/${id}`, { tier: "platinum" });
    expect(refusedPatch.status).toBe(422);
    const missing = await change("DELETE", "/api/v1/settings/webhooks/wh_missing");
    expect(missing.status).toBe(404);
    const webhookRefused = await change("POST", "/api/v1/settings/webhooks", {
      url: "http://127.0.0.1:1/nobody-listens",
      events: ["portfolio.valued"],
    });
    expect(webhookRefused.status).toBeGreaterThanOrEqual(400);
    expect(webhookRefused.status).toBeLessThan(500);

    const { entries, reply } = await trail("");
    expect(reply.body.pagination.totalItems).toBe(before + 1);
    const requestIds = entries.map((e) => e.requestId);
    for (const refused of [refusedCreate, refusedPatch, missing, webhookRefused])
      expect(requestIds).not.toContain(refused.requestId);
    expect(requestIds).toContain(created.requestId);
  });

  it("filters by type, item, actor and time, pages by cursor, and refuses bad filters in the error shape", async () => {
    const all = await trail("");
    expect(all.entries.length).toBeGreaterThan(5);
    const ats = all.entries.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);

    const feeds = await trail("resourceType=feed");
    expect(feeds.entries.length).toBeGreaterThan(0);
    expect(feeds.entries.every((e) => e.resource.type === "feed")).toBe(true);

    const oldest = all.entries.at(-1) as Entry;
    const upToOldest = await trail(`to=${encodeURIComponent(oldest.at)}`);
    expect(upToOldest.entries.map((e) => e.id)).toContain(oldest.id);
    expect(upToOldest.entries.every((e) => e.at <= oldest.at)).toBe(true);
    const future = await trail(`from=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.entries).toEqual([]);

    const seen: string[] = [];
    let cursor: string | null = null;
    let first = true;
    while (first || cursor !== null) {
      const page: Reply = await call(
        "GET",
        `${AUDIT}?actor=${admin.clientId}&pageSize=2${cursor !== null ? `&cursor=${cursor}` : ""}`,
        { token: admin.token },
      );
      expect(page.status, page.text).toBe(200);
      seen.push(...(page.body.data as Entry[]).map((e) => e.id));
      cursor = page.body.pagination.nextCursor as string | null;
      first = false;
    }
    expect(seen).toEqual(all.entries.map((e) => e.id));

    const bad = await call("GET", `${AUDIT}?resourceType=portfolio`, { token: admin.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("resourceType");
    const reversed = await call("GET", `${AUDIT}?from=2026-02-01&to=2026-01-01`, { token: admin.token });
    expect(reversed.status).toBe(400);

    const reader = await newClient(admin.token, ["api.read"]);
    expect((await call("GET", AUDIT, { token: reader.token })).status).toBe(403);
  });

  it("shows no secret anywhere: neither the values sent or answered, nor their stored hashes or sealed forms", async () => {
    const { reply } = await trail("");
    const raw = (await call("GET", `${AUDIT}?pageSize=200`, { token: admin.token })).text + reply.text;
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const stored: string[] = [];
    const { resources } = await cosmos
      .database("investment-data")
      .container("settings")
      .items.query<Record<string, unknown>>("SELECT * FROM c")
      .fetchAll();
    for (const doc of resources) {
      if (typeof doc.secretHash === "string") stored.push(doc.secretHash);
      if (typeof doc.secret === "string") stored.push(doc.secret);
      const destination = doc.destination as Record<string, unknown> | undefined;
      for (const key of ["password", "privateKey"]) {
        const value = destination?.[key];
        if (typeof value === "string") stored.push(value);
      }
      const sftp = doc.sftp as Record<string, unknown> | undefined;
      if (typeof sftp?.passwordHash === "string") stored.push(sftp.passwordHash);
    }
    expect(secrets.length).toBeGreaterThan(10);
    expect(stored.length).toBeGreaterThan(5);
    for (const secret of [...secrets, ...stored]) {
      expect(raw.includes(secret), `a secret in the audit answer: ${secret.slice(0, 12)}…`).toBe(false);
      // A PEM key's body lines too, in case it were stored or shown re-wrapped.
      for (const line of secret.split("\n").filter((l) => l.length > 40)) expect(raw.includes(line)).toBe(false);
    }
  });
});
