import { readdir } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, call, cosmosEndpoint, storageConnectionString, useOwnRuntime, type Reply } from "./http";
import { COSMOS_KEY } from "./investment-fixtures";
import { startSftpTarget, type SftpTarget } from "./sftp-target";

// As in Azure: the SSRF guard on (private networks not allowed). Runs retried after 1 s.
useOwnRuntime({
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
  EXPORTS_SCHEDULE: "*/1 * * * * *",
  EXPORTS_RETRY_DELAY_SECONDS: "1",
  EXPORTS_RUN_LEASE_SECONDS: "6",
  EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS: "3",
});

const BASE = "/api/v1/settings/exports";
const PASSWORD = "hostile-Test-pa55word";
type Run = { id: string; status: string; attempts: number; error?: string; fileName: string };

/**
 * Export destinations a hostile (or careless) admin could aim at the service itself: another host
 * for the storage token, the service's own network, the service's own storage. The runtime here runs
 * with WEBHOOK_ALLOW_PRIVATE_NETWORKS=false, as in Azure.
 */
describe("export destinations that must not be reached", () => {
  let token: string;
  let target: SftpTarget;
  let blobs: BlobServiceClient;
  let emulator: string;
  let customer: ContainerClient;
  const definition = (destination: Record<string, unknown>): Record<string, unknown> => ({
    name: "hostile",
    dataType: "securities",
    format: "csv",
    schedule: { frequency: "daily", time: "03:00" },
    destination,
    fileName: "securities.csv",
  });
  const sftp = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    type: "sftp",
    host: "sftp.customer.example",
    port: 22,
    username: "ids",
    password: PASSWORD,
    path: "/out",
    ...over,
  });
  const create = (destination: Record<string, unknown>): Promise<Reply> =>
    call("POST", BASE, { token, body: definition(destination) });
  const cosmos = () =>
    new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    }).database("investment-data");
  /** What a definition saved before the rules looks like: created valid, then its destination changed in the store. */
  async function legacy(valid: Record<string, unknown>, change: Record<string, unknown>): Promise<string> {
    const reply = await create(valid);
    expect(reply.status, reply.text).toBe(201);
    const item = cosmos().container("settings").item(reply.body.data.id, "export");
    const { resource } = await item.read();
    await item.replace({ ...resource, destination: { ...resource.destination, ...change } });
    return reply.body.data.id;
  }
  const finishedRun = async (id: string): Promise<Run> => {
    expect((await call("POST", `${BASE}/${id}/run`, { token })).status).toBe(202);
    return vi.waitFor(
      async () => {
        const [run] = (await call("GET", `${BASE}/${id}/runs`, { token })).body.data as Run[];
        assert.isDefined(run, `the run of ${id}`);
        expect(["running", "retrying"], `the run of ${id}`).not.toContain(run.status);
        return run;
      },
      { timeout: 30_000, interval: 100 },
    );
  };

  beforeAll(async () => {
    token = await adminToken();
    target = await startSftpTarget({ users: [{ username: "ids", password: PASSWORD }] });
    blobs = BlobServiceClient.fromConnectionString(storageConnectionString());
    emulator = blobs.url.replace(/\/$/, "");
    customer = blobs.getContainerClient(`customer-${Date.now().toString(36)}`);
    await customer.create();
  });
  afterAll(async () => {
    await target?.close();
  });

  it("SFTP hosts on the service's own network, in any spelling, are 422 on destination.host at create and PATCH; [::1] too", async () => {
    const hosts = [
      "127.0.0.1",
      "169.254.169.254",
      "10.0.0.1",
      "192.168.1.10",
      "0.0.0.0",
      "100.64.0.1",
      "2130706433",
      "0x7f000001",
      "127.1",
      "localhost",
      "LocalHost.",
      "[::1]",
      "::1",
      "::ffff:127.0.0.1",
      "fe80::1",
      "metadata.google.internal",
    ];
    const { id } = (await create(sftp())).body.data;
    for (const host of hosts) {
      for (const reply of [
        await create(sftp({ host })),
        await call("PATCH", `${BASE}/${id}`, { token, body: { destination: { host } } }),
      ]) {
        expect(reply.status, `${host}: ${reply.text}`).toBe(422);
        expect(
          reply.body.error.details.map((d: { field: string }) => d.field),
          host,
        ).toEqual(["destination.host"]);
      }
    }
    expect((await create(sftp({ host: "127.0.0.1" }))).body.error.details[0].message).toBe(
      "is a non-public address (loopback address); exports must reach public addresses",
    );
    expect((await create(sftp({ host: "[::1]" }))).body.error.details[0].message).toBe(
      "write an IPv6 address without brackets (::1, not [::1])",
    );
    expect((await create(sftp({ host: "2130706433" }))).body.error.details[0].message).toBe(
      "write the IPv4 address as four decimal numbers (127.0.0.1), not in another encoding",
    );
    // A name is vetted when the run connects (resolved once, every address checked).
    expect((await create(sftp({ host: "sftp.customer.example" }))).status).toBe(201);
  });

  it("a definition saved before the guard: its runs fail without any connection, and say nothing of what listens at the target", async () => {
    const toServer = await legacy(sftp(), { host: "127.0.0.1", port: target.port });
    const toNothing = await legacy(sftp(), { host: "127.0.0.1", port: 1 });
    const encoded = await legacy(sftp(), { host: "2130706433", port: target.port });
    const unresolvable = (await create(sftp({ host: "sftp.customer.example" }))).body.data.id as string;
    const runs = await Promise.all([toServer, toNothing, encoded, unresolvable].map(finishedRun));
    for (const run of runs) expect(run).toMatchObject({ status: "failed", attempts: 3 });
    expect(runs[0]!.error).toBe(
      "the destination may not be used: destination.host is a non-public address (loopback address); exports must reach public addresses; nothing was written",
    );
    expect(runs[1]!.error).toBe(runs[0]!.error);
    expect(runs[2]!.error).toMatch(
      /^the destination may not be used: destination\.host write the IPv4 address as four decimal numbers/,
    );
    expect(runs[3]!.error).toBe("the host name 'sftp.customer.example' does not resolve to a public address");
    expect(target.connections).toBe(0);
    expect(target.logins).toEqual([]);
  }, 60_000);

  it("blob destinations: only Azure blob endpoints or this emulator (422 otherwise); a definition saved before the rule sends nothing, token or file, anywhere", async () => {
    for (const containerUrl of [
      "https://attacker.example/stolen",
      "https://169.254.169.254/metadata",
      "http://10.0.0.1/exports",
      "https://custacct.blob.core.windows.net.attacker.example/x1",
      "http://127.0.0.1:1/devstoreaccount1/x1",
    ]) {
      const reply = await create({ type: "blob", containerUrl });
      expect(reply.status, containerUrl).toBe(422);
      expect(
        reply.body.error.details.map((d: { field: string }) => d.field),
        containerUrl,
      ).toEqual(["destination.containerUrl"]);
    }
    for (const containerUrl of [
      "https://custacct.blob.core.windows.net/ids-exports",
      "https://govacct.blob.core.usgovcloudapi.net/ids-exports",
      `${emulator}/${customer.containerName}`,
    ]) {
      expect((await create({ type: "blob", containerUrl })).status, containerUrl).toBe(201);
    }

    // An "attacker" endpoint that records whatever reaches it.
    const received: IncomingMessage[] = [];
    const attacker = createServer((req, res) => {
      received.push(req);
      res.statusCode = 201;
      res.end();
    });
    const port = await new Promise<number>((resolve) =>
      attacker.listen(0, "127.0.0.1", () => resolve((attacker.address() as { port: number }).port)),
    );
    try {
      const id = await legacy(
        { type: "blob", containerUrl: "https://custacct.blob.core.windows.net/ids-exports" },
        { containerUrl: `http://127.0.0.1:${port}/stolen` },
      );
      const run = await finishedRun(id);
      expect(run).toMatchObject({ status: "failed", attempts: 3 });
      expect(run.error).toMatch(
        /^the destination may not be used: destination\.containerUrl must be https:\/\/ACCOUNT\.blob\.core\.windows\.net\/CONTAINER/,
      );
      expect(received).toEqual([]);
    } finally {
      attacker.close();
    }
  }, 60_000);

  it("the service's own containers are no destination: 422, and a definition saved before the rule writes nothing into a feed's inbox", async () => {
    for (const own of ["inbound", "archive", "quarantine", "exports", "azure-webjobs-hosts", "azure-webjobs-secrets"]) {
      const reply = await create({ type: "blob", containerUrl: `${emulator}/${own}`, prefix: "fd_victim/" });
      expect(reply.status, own).toBe(422);
      expect(reply.body.error.details).toEqual([
        {
          field: "destination.containerUrl",
          message: `"${own}" is one of the service's own containers; name another container of the emulator`,
        },
      ]);
    }
    const id = await legacy(
      { type: "blob", containerUrl: `${emulator}/${customer.containerName}`, prefix: "fd_victim/" },
      { containerUrl: `${emulator}/inbound` },
    );
    const run = await finishedRun(id);
    expect(run).toMatchObject({
      status: "failed",
      error: `the destination may not be used: destination.containerUrl "inbound" is one of the service's own containers; name another container of the emulator; nothing was written`,
    });
    const injected: string[] = [];
    for await (const blob of blobs.getContainerClient("inbound").listBlobsFlat({ prefix: "fd_victim/" }))
      injected.push(blob.name);
    expect(injected).toEqual([]);

    // A customer's container of the same emulator still works, with the guard on.
    const ok = (await create({ type: "blob", containerUrl: `${emulator}/${customer.containerName}`, prefix: "ok/" }))
      .body.data.id as string;
    expect(await finishedRun(ok)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(await customer.getBlobClient("ok/securities.csv").exists()).toBe(true);
  }, 60_000);

  it("Test connection is guarded as saving and runs are: 422 before any connection, a legacy definition's stored host too; a name is vetted when resolved", async () => {
    const test = (body: unknown): Promise<Reply> => call("POST", `${BASE}/test-destination`, { token, body });
    for (const host of ["127.0.0.1", "169.254.169.254", "localhost", "::1", "2130706433"]) {
      const reply = await test({ destination: sftp({ host, port: target.port }) });
      expect(reply.status, `${host}: ${reply.text}`).toBe(422);
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual(["destination.host"]);
    }
    const stored = await legacy(sftp(), { host: "127.0.0.1", port: target.port });
    const legacyTest = await test({ exportId: stored });
    expect(legacyTest.status, legacyTest.text).toBe(422);
    expect(legacyTest.body.error.details.map((d: { field: string }) => d.field)).toEqual(["destination.host"]);
    const unresolvable = await test({ destination: sftp({ host: "sftp.customer.example" }) });
    expect(unresolvable.status).toBe(200);
    expect(unresolvable.body.data.steps[0]).toEqual({
      name: "resolve",
      status: "failed",
      detail: "the host name 'sftp.customer.example' does not resolve to a public address",
    });
    for (const containerUrl of ["http://127.0.0.1:1/devstoreaccount1/x1", `${emulator}/inbound`]) {
      expect((await test({ destination: { type: "blob", containerUrl } })).status, containerUrl).toBe(422);
      const source = await call("POST", "/api/v1/settings/blob-sources/test", { token, body: { containerUrl } });
      expect(source.status, containerUrl).toBe(422);
    }
    expect(target.connections).toBe(0);
  });

  it("nothing of this reached the SFTP target's disk", async () => {
    expect(await readdir(join(target.root))).toEqual([]);
  });
});
