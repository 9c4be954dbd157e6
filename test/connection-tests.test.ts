import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminToken, call, newClient, type Reply } from "./http";
import { BOOTSTRAP } from "./runtime";
import { startSftpTarget, type SftpTarget } from "./sftp-target";

const EXPORTS = "/api/v1/settings/exports";
const PASSWORD = "customer-Probe-pa55word";
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
type Step = { name: string; status: string; detail: string };

/**
 * Test connection (issue: connections tested before they are saved), over HTTP against the shared
 * runtime, a real SFTP server (the customer's, as the tests start it) and Azurite: each named step's
 * outcome, the host key to approve, and nothing left behind.
 */
describe("System settings › Test connection", () => {
  let token: string;
  let target: SftpTarget;
  let blobs: BlobServiceClient;
  let customer: ContainerClient;
  const sftp = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    type: "sftp",
    host: "127.0.0.1",
    port: target.port,
    username: "ids",
    password: PASSWORD,
    path: "/outbound/daily",
    ...over,
  });
  const testDestination = (body: unknown): Promise<Reply> =>
    call("POST", `${EXPORTS}/test-destination`, { token, body });
  const statuses = (reply: Reply): Record<string, string> =>
    Object.fromEntries((reply.body.data.steps as Step[]).map((s) => [s.name, s.status]));
  const detail = (reply: Reply, name: string): string =>
    (reply.body.data.steps as Step[]).find((s) => s.name === name)?.detail ?? "";
  const customerBlobs = async (): Promise<string[]> => {
    const names: string[] = [];
    for await (const b of customer.listBlobsFlat()) names.push(b.name);
    return names;
  };

  beforeAll(async () => {
    token = await adminToken();
    target = await startSftpTarget({ users: [{ username: "ids", password: PASSWORD }] });
    blobs = BlobServiceClient.fromConnectionString(inject("storageConnectionString"));
    customer = blobs.getContainerClient(`probe-${Date.now().toString(36)}`);
    await customer.create();
    await customer.getBlockBlobClient("daily/positions-1.csv").upload("a", 1);
  });
  afterAll(async () => {
    await target.close();
    await customer.delete();
  });

  it("SFTP: every step passes in order, the host key's fingerprint is shown to approve, and the probe file and the directories made for it are gone", async () => {
    const reply = await testDestination({ destination: sftp() });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data).toMatchObject({
      ok: true,
      hostKeyFingerprint: target.hostKeyOpenSshFingerprint,
      hostKeyType: "ssh-ed25519",
    });
    expect((reply.body.data.steps as Step[]).map((s) => [s.name, s.status])).toEqual([
      ["resolve", "passed"],
      ["connect", "passed"],
      ["handshake", "passed"],
      ["authenticate", "passed"],
      ["write", "passed"],
    ]);
    expect(detail(reply, "handshake")).toContain(`${target.hostKeyOpenSshFingerprint}, not approved yet`);
    // /outbound/daily did not exist: it was made for the probe and removed again, as was the probe.
    const ops = target.operations.map((o) => `${o.op} ${o.path}`);
    const probe = ops.find((o) => o.startsWith("open-write /outbound/daily/.ids-connection-test-"))?.slice(11) ?? "";
    expect(probe).not.toBe("");
    expect(ops).toEqual(
      expect.arrayContaining([
        "mkdir /outbound",
        "mkdir /outbound/daily",
        `remove ${probe}`,
        "rmdir /outbound/daily",
        "rmdir /outbound",
      ]),
    );
    expect(await readdir(target.root)).toEqual([]);
    expect(reply.text).not.toContain(PASSWORD);
  });

  it("SFTP: an existing directory stays and only the probe comes and goes; the approved key passes, another key fails the handshake before any login", async () => {
    await mkdir(join(target.root, "drop"), { recursive: true });
    const pinned = await testDestination({
      destination: sftp({ path: "/drop", hostKeyFingerprint: target.hostKeyOpenSshFingerprint }),
    });
    expect(pinned.body.data.ok, pinned.text).toBe(true);
    expect(detail(pinned, "handshake")).toContain("the approved one");
    expect(await readdir(join(target.root, "drop"))).toEqual([]);

    const logins = target.logins.length;
    const other = `SHA256:${Buffer.alloc(32, 9).toString("base64").replace(/=+$/, "")}`;
    const wrong = await testDestination({ destination: sftp({ path: "/drop", hostKeyFingerprint: other }) });
    expect(wrong.status).toBe(200);
    expect(wrong.body.data).toMatchObject({ ok: false, hostKeyFingerprint: target.hostKeyOpenSshFingerprint });
    expect(statuses(wrong)).toEqual({
      resolve: "passed",
      connect: "passed",
      handshake: "failed",
      authenticate: "skipped",
      write: "skipped",
    });
    expect(detail(wrong, "handshake")).toContain(`not the approved ${other}`);
    expect(target.logins.length).toBe(logins);
  });

  it("SFTP: a wrong password fails authenticate (never echoing it), a closed port fails connect, an unresolvable name fails resolve", async () => {
    const wrongSecret = "not-the-Right-one-42";
    const refused = await testDestination({ destination: sftp({ password: wrongSecret }) });
    expect(refused.body.data.ok).toBe(false);
    expect(statuses(refused)).toMatchObject({ handshake: "passed", authenticate: "failed", write: "skipped" });
    expect(detail(refused, "authenticate")).toContain("refused the login of user 'ids': check the password");
    expect(refused.text).not.toContain(wrongSecret);

    const closed = await testDestination({ destination: sftp({ port: 1 }) });
    expect(statuses(closed)).toEqual({
      resolve: "passed",
      connect: "failed",
      handshake: "skipped",
      authenticate: "skipped",
      write: "skipped",
    });
    expect(detail(closed, "connect")).toContain("no TCP connection to 127.0.0.1:1");

    const nowhere = await testDestination({ destination: sftp({ host: "no-such-host.invalid" }) });
    expect(statuses(nowhere)).toMatchObject({ resolve: "failed", connect: "skipped" });
    expect(detail(nowhere, "resolve")).toContain("no-such-host.invalid");
  });

  it("an existing export is tested with its stored secret (exportId), changes laid over it; approving the key records who and when, kept while it stays the same", async () => {
    const created = await call("POST", EXPORTS, {
      token,
      body: {
        name: "probe me",
        dataType: "securities",
        format: "csv",
        schedule: { frequency: "daily", time: "23:59" },
        destination: sftp({ path: "/stored" }),
        fileName: "s.csv",
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data.destination.hostKeyApprovedBy).toBeUndefined();

    const stored = await testDestination({ exportId: id });
    expect(stored.body.data.ok, stored.text).toBe(true);
    const overlaid = await testDestination({ exportId: id, destination: { password: "wrong-Password-1" } });
    expect(statuses(overlaid)).toMatchObject({ authenticate: "failed" });
    expect((await testDestination({ exportId: "ex_missing" })).status).toBe(404);

    // Approve what the test saw: the fingerprint saved, with who and when.
    const approved = await call("PATCH", `${EXPORTS}/${id}`, {
      token,
      body: { destination: { hostKeyFingerprint: stored.body.data.hostKeyFingerprint } },
    });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data.destination).toMatchObject({
      hostKeyFingerprint: target.hostKeyOpenSshFingerprint,
      hostKeyApprovedBy: BOOTSTRAP.id,
      hostKeyApprovedAt: iso,
    });
    const by = approved.body.data.destination.hostKeyApprovedBy as string;
    const at = approved.body.data.destination.hostKeyApprovedAt as string;
    // The same key in another spelling, and an unrelated change, keep the approval; removing the key drops it.
    const hex = Buffer.from(target.hostKeyFingerprint, "base64").toString("hex");
    const renamed = await call("PATCH", `${EXPORTS}/${id}`, {
      token,
      body: { name: "renamed", destination: { hostKeyFingerprint: hex } },
    });
    expect(renamed.body.data.destination).toMatchObject({ hostKeyApprovedBy: by, hostKeyApprovedAt: at });
    const unpinned = await call("PATCH", `${EXPORTS}/${id}`, {
      token,
      body: { destination: { hostKeyFingerprint: null } },
    });
    expect(unpinned.status, unpinned.text).toBe(200);
    expect(unpinned.body.data.destination.hostKeyApprovedBy).toBeUndefined();
    expect(unpinned.body.data.destination.hostKeyApprovedAt).toBeUndefined();
  });

  it("blob: resolve, list under the prefix, write and delete a probe blob; the customer's container is left as it was", async () => {
    const before = await customerBlobs();
    const reply = await testDestination({
      destination: { type: "blob", containerUrl: customer.url, prefix: "daily/" },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data.ok, reply.text).toBe(true);
    expect((reply.body.data.steps as Step[]).map((s) => [s.name, s.status])).toEqual([
      ["resolve", "passed"],
      ["list", "passed"],
      ["write", "passed"],
    ]);
    expect(detail(reply, "list")).toContain("daily/positions-1.csv");
    expect(detail(reply, "write")).toMatch(/wrote and deleted daily\/\.ids-connection-test-[0-9a-f]{12}/);
    expect(await customerBlobs()).toEqual(before);
    expect(reply.body.data.hostKeyFingerprint).toBeUndefined();
  });

  it("blob source: resolve and list only (nothing written); a container that does not exist fails list with the fix", async () => {
    const before = await customerBlobs();
    const reply = await call("POST", "/api/v1/settings/blob-sources/test", {
      token,
      body: { containerUrl: customer.url, prefix: "daily/" },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data).toEqual({
      ok: true,
      steps: [
        { name: "resolve", status: "passed", detail: expect.any(String) },
        { name: "list", status: "passed", detail: expect.stringContaining("daily/positions-1.csv") },
      ],
    });
    expect(await customerBlobs()).toEqual(before);

    const missing = await call("POST", "/api/v1/settings/blob-sources/test", {
      token,
      body: { containerUrl: `${blobs.url.replace(/\/$/, "")}/no-such-container-${Date.now()}` },
    });
    expect(missing.status, missing.text).toBe(200);
    expect(missing.body.data.ok).toBe(false);
    expect(missing.body.data.steps[1]).toMatchObject({ name: "list", status: "failed" });
    expect(missing.body.data.steps[1].detail).toMatch(/not found|does not exist/i);
  });

  it("what saving would refuse is a 422 naming the field, before any connection; a client without api.admin is 403", async () => {
    const connections = target.connections;
    const noSecret = await testDestination({
      destination: { type: "sftp", host: "127.0.0.1", username: "u", path: "/" },
    });
    expect(noSecret.status).toBe(422);
    expect(noSecret.body.error.details).toEqual([
      { field: "destination.password", message: "an SFTP destination needs a password or a privateKey" },
    ]);
    const badPort = await testDestination({ destination: sftp({ port: 70000 }) });
    expect(badPort.status).toBe(422);
    expect(badPort.body.error.details[0].field).toBe("destination.port");
    const notAzure = await testDestination({ destination: { type: "blob", containerUrl: "https://example.com/c" } });
    expect(notAzure.status).toBe(422);
    expect(notAzure.body.error.details[0].field).toBe("destination.containerUrl");
    expect((await testDestination({})).status).toBe(422);
    const notContainer = await call("POST", "/api/v1/settings/blob-sources/test", {
      token,
      body: { containerUrl: "https://example.com/c" },
    });
    expect(notContainer.status).toBe(422);
    expect(notContainer.body.error.details[0].field).toBe("containerUrl");
    expect(target.connections).toBe(connections);

    const reader = await newClient(token, ["api.read", "api.write"]);
    expect(
      (await call("POST", `${EXPORTS}/test-destination`, { token: reader.token, body: { destination: sftp() } }))
        .status,
    ).toBe(403);
    expect(
      (
        await call("POST", "/api/v1/settings/blob-sources/test", {
          token: reader.token,
          body: { containerUrl: customer.url },
        })
      ).status,
    ).toBe(403);
  });
});
