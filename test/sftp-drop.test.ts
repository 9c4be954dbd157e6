import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";
import { Client, type SFTPWrapper } from "ssh2";
import SftpClient from "ssh2-sftp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../local/launch";
import { custodianPositionsFeed } from "./feed-fixtures";
import { adminToken, call } from "./http";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";
import { observeEvents } from "./blob-events";
import { ed25519KeyPair } from "../shared/adapters/sftp/ssh-key-pair";

const BASE = "/api/v1/settings/feeds";
const fixture = readFileSync(join(__dirname, "fixtures/feeds/csv/custodian-positions-cp1252.csv"));

const positionsCsv = {
  ...custodianPositionsFeed,
  // Paused: ingestion leaves the inbox alone, so what these tests see there is what the drop did.
  status: "paused",
};

interface Login {
  id: string;
  host: string;
  port: number;
  username: string;
  password: string;
}

describe("SFTP drop (local runtime)", () => {
  let runtime: Runtime;
  let data: ReturnType<typeof tempDir>;
  let token: string;
  const clients: SftpClient[] = [];

  beforeAll(async () => {
    data = tempDir("ids-sftp-");
    const port = String(await freePort());
    // A short login backoff: the tests below fail logins on purpose, all from 127.0.0.1 (sftp-hostile.test.ts tests the backoff).
    runtime = await startRuntime(
      await runtimeEnv(data.path, {
        SFTP_PORT: port,
        LOCAL_SFTP_PORT: port,
        SFTP_AUTH_BACKOFF_SECONDS: "0.05",
        SFTP_AUTH_BACKOFF_MAX_SECONDS: "0.2",
      }),
    );
    token = await adminToken(runtime.baseUrl);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await runtime?.stop();
    data?.remove();
  }, 60_000);

  const inbound = () =>
    BlobServiceClient.fromConnectionString(runtime.env.STORAGE_CONNECTION_STRING ?? "").getContainerClient("inbound");
  const newFeed = async (): Promise<Login> => {
    const reply = await call("POST", BASE, { token, body: positionsCsv, base: runtime.baseUrl });
    expect(reply.status, reply.text).toBe(201);
    const { id, sftp } = reply.body.data;
    return { id, host: sftp.host, port: sftp.port, username: sftp.username, password: sftp.password };
  };
  const connect = async (
    login: Login,
    override: { password?: string; privateKey?: string; username?: string } = {},
  ): Promise<SftpClient> => {
    const client = new SftpClient();
    clients.push(client);
    const credentials =
      override.privateKey !== undefined
        ? { privateKey: override.privateKey }
        : { password: override.password ?? login.password };
    await client.connect({
      host: login.host,
      port: login.port,
      username: override.username ?? login.username,
      ...credentials,
      retries: 0,
      readyTimeout: 10_000,
    });
    return client;
  };
  /** A raw ssh2 session, for what the client library does not do (dropping mid-upload, out-of-order writes). */
  const raw = (login: Login): Promise<{ conn: Client; sftp: SFTPWrapper }> =>
    new Promise((resolve, reject) => {
      const conn = new Client();
      conn.on("error", reject);
      conn.on("ready", () => conn.sftp((error, sftp) => (error ? reject(error) : resolve({ conn, sftp }))));
      conn.connect({ host: login.host, port: login.port, username: login.username, password: login.password });
    });

  it("a feed's login uploads, lists and removes files in its inbox: inbound/<feedId>/<name>, byte for byte", async () => {
    const login = await newFeed();
    expect(login.port).toBe(runtime.sftpPort);
    expect(runtime.output()).toContain(`sftp:     sftp://127.0.0.1:${runtime.sftpPort} (one login per feed)`);
    const sftp = await connect(login);
    expect(await sftp.cwd()).toBe("/");
    await sftp.put(fixture, "/custodian-positions-2026-11-24.csv");
    const listed = await sftp.list("/");
    expect(listed.map((f) => ({ name: f.name, size: f.size, type: f.type }))).toEqual([
      { name: "custodian-positions-2026-11-24.csv", size: fixture.length, type: "-" },
    ]);
    expect(await sftp.exists("custodian-positions-2026-11-24.csv")).toBe("-");

    const blob = inbound().getBlockBlobClient(`${login.id}/custodian-positions-2026-11-24.csv`);
    expect(Buffer.compare(await blob.downloadToBuffer(), fixture)).toBe(0);
    const props = await blob.getProperties();
    expect(props.contentType).toBe("text/csv");
    expect(props.metadata).toEqual({ feedid: login.id, source: "sftp" });

    await sftp.delete("/custodian-positions-2026-11-24.csv");
    expect(await sftp.list("/")).toEqual([]);
    expect(await blob.exists()).toBe(false);
  });

  it("a 20 MB upload streams into the blob block by block", async () => {
    const login = await newFeed();
    const sftp = await connect(login);
    const big = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    await sftp.put(big, "custodian-positions-big.csv");
    const blob = inbound().getBlockBlobClient(`${login.id}/custodian-positions-big.csv`);
    expect(Buffer.compare(await blob.downloadToBuffer(), big)).toBe(0);
    // Staged as it arrived, about 4 MB at a time, committed at close.
    const blocks = await blob.getBlockList("committed");
    expect(blocks.committedBlocks?.length).toBe(5);
  }, 60_000);

  it("an upload dropped before CLOSE leaves no blob; out-of-order writes fail", async () => {
    const login = await newFeed();
    const { conn, sftp } = await raw(login);
    const handle = await new Promise<Buffer>((resolve, reject) =>
      sftp.open("custodian-positions-dropped.csv", "w", (e, h) => (e ? reject(e) : resolve(h))),
    );
    const chunk = Buffer.alloc(32 * 1024, 7);
    for (let i = 0; i < 200; i++) {
      await new Promise<void>((resolve, reject) =>
        sftp.write(handle, chunk, 0, chunk.length, i * chunk.length, (e) => (e ? reject(e) : resolve())),
      );
    }
    const gap = await new Promise<Error | undefined>((resolve) => {
      sftp.open("custodian-positions-gap.csv", "w", (e, h) => {
        if (e) return resolve(e);
        sftp.write(h, chunk, 0, chunk.length, 1000, (error) => resolve(error ?? undefined));
      });
    });
    expect(gap?.message).toMatch(/sequential/);
    conn.destroy();
    await new Promise((r) => setTimeout(r, 500)); // waits to show that neither upload is stored
    expect(await inbound().getBlockBlobClient(`${login.id}/custodian-positions-dropped.csv`).exists()).toBe(false);
    expect(await inbound().getBlockBlobClient(`${login.id}/custodian-positions-gap.csv`).exists()).toBe(false);
  });

  it("an upload creates its file empty at open (SftpCreate) and fills it at close (SftpCommit): only the commit reaches ingestion", async () => {
    const created = await call("POST", BASE, {
      token,
      body: { ...positionsCsv, status: "testing" },
      base: runtime.baseUrl,
    });
    expect(created.status, created.text).toBe(201);
    const login: Login = { id: created.body.data.id, ...created.body.data.sftp };
    const events = await observeEvents(
      runtime.env.STORAGE_CONNECTION_STRING ?? "",
      `/blobServices/default/containers/inbound/blobs/${login.id}/`,
    );
    const jobs = async (): Promise<Record<string, unknown>[]> =>
      (await call("GET", `/api/v1/jobs?feedId=${login.id}`, { token, base: runtime.baseUrl })).body.data;
    const { conn, sftp } = await raw(login);
    const handle = await new Promise<Buffer>((resolve, reject) =>
      sftp.open("custodian-positions-slow.csv", "w", (e, h) => (e ? reject(e) : resolve(h))),
    );
    const blob = inbound().getBlockBlobClient(`${login.id}/custodian-positions-slow.csv`);
    // As on Azure's endpoint: the file is there, empty, while the upload runs.
    expect((await blob.getProperties()).contentLength).toBe(0);
    const write = (data: Buffer, at: number): Promise<void> =>
      new Promise((resolve, reject) =>
        sftp.write(handle, data, 0, data.length, at, (e) => (e ? reject(e) : resolve())),
      );
    const half = Math.floor(fixture.length / 2);
    await write(fixture.subarray(0, half), 0);
    // Well past the blob host's poll: the empty file's event, had it reached ingestion, would have run by now.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await jobs()).toEqual([]);
    expect((await blob.getProperties()).contentLength).toBe(0);
    await write(fixture.subarray(half), half);
    await new Promise<void>((resolve, reject) => sftp.close(handle, (e) => (e ? reject(e) : resolve())));
    conn.end();
    await expect
      .poll(async () => (await jobs()).map((j) => [j.fileName, j.status]), { timeout: 30_000, interval: 100 })
      .toEqual([["custodian-positions-slow.csv", "completed"]]);
    // The storage events of the file: create and commit by SFTP, then ingestion moving it to archive.
    await expect
      .poll(async () => (await events.events()).map((e) => [e.eventType, e.data.api]), { timeout: 10_000 })
      .toEqual([
        ["Microsoft.Storage.BlobCreated", "SftpCreate"],
        ["Microsoft.Storage.BlobCreated", "SftpCommit"],
        ["Microsoft.Storage.BlobDeleted", "DeleteBlob"],
      ]);
    const [opened, committed] = await events.events();
    expect(opened?.data.contentLength).toBe(0);
    expect(committed?.data.contentLength).toBe(fixture.length);
  });

  it("wrong passwords and unknown users are refused alike", async () => {
    const login = await newFeed();
    await expect(connect(login, { password: "wrong" })).rejects.toThrow(/authentication/i);
    await expect(connect(login, { username: "feed-000000000000000000" })).rejects.toThrow(/authentication/i);
    await expect(connect(login, { username: "root" })).rejects.toThrow(/authentication/i);
  });

  it("one feed's login can neither see nor touch another feed's files", async () => {
    const a = await newFeed();
    const b = await newFeed();
    const sftpB = await connect(b);
    await sftpB.put(fixture, "custodian-positions-b.csv");
    const sftpA = await connect(a);
    expect(await sftpA.list("/")).toEqual([]);
    expect(await sftpA.exists("custodian-positions-b.csv")).toBe(false);
    await expect(sftpA.delete("custodian-positions-b.csv")).rejects.toThrow(/no such file/i);
    await expect(sftpA.delete(`../${b.id}/custodian-positions-b.csv`)).rejects.toThrow(/denied/i);
    await expect(sftpA.list(`/../${b.id}`)).rejects.toThrow(/denied/i);
    expect(await inbound().getBlockBlobClient(`${b.id}/custodian-positions-b.csv`).exists()).toBe(true);
    expect((await sftpB.list("/")).map((f) => f.name)).toEqual(["custodian-positions-b.csv"]);
  });

  it("escapes, subdirectories, links, renames and names off the feed's pattern are refused", async () => {
    const login = await newFeed();
    const sftp = await connect(login);
    for (const path of [
      "../custodian-positions-x.csv",
      "/../custodian-positions-x.csv",
      "/etc/passwd",
      "sub/custodian-positions-x.csv",
      `custodian-positions-${"x".repeat(250)}.csv`,
    ]) {
      await expect(sftp.put(fixture, path), path).rejects.toThrow(/denied/i);
    }
    await expect(sftp.put(fixture, "holdings.csv")).rejects.toThrow(/does not match the feed.s file pattern/);
    await expect(sftp.put(fixture, "custodian-positions-1.CSV")).rejects.toThrow(
      /does not match the feed.s file pattern/,
    );
    await expect(sftp.mkdir("/sub")).rejects.toThrow(/denied/i);
    await sftp.put(fixture, "custodian-positions-1.csv");
    await expect(sftp.rename("custodian-positions-1.csv", "custodian-positions-2.csv")).rejects.toThrow(/denied/i);
    const { conn, sftp: wrapper } = await raw(login);
    const linked = await new Promise<Error | undefined>((r) =>
      wrapper.symlink("custodian-positions-1.csv", "custodian-positions-3.csv", (e) => r(e ?? undefined)),
    );
    const read = await new Promise<Error | undefined>((r) =>
      wrapper.readlink("custodian-positions-1.csv", (e) => r(e ?? undefined)),
    );
    conn.end();
    expect(linked?.message).toMatch(/denied/i);
    expect(read?.message).toMatch(/denied/i);
    await expect(sftp.realPath("../x")).rejects.toThrow(/denied/i);
    expect(await sftp.realPath("./custodian-positions-1.csv")).toBe("/custodian-positions-1.csv");
    expect((await sftp.list("/")).map((f) => f.name)).toEqual(["custodian-positions-1.csv"]);
    const names = [];
    for await (const blob of inbound().listBlobsFlat()) names.push(blob.name);
    expect(names.filter((n) => !n.includes("/")).length).toBe(0);
    expect(names.filter((n) => n.startsWith(`${login.id}/`))).toEqual([`${login.id}/custodian-positions-1.csv`]);
  });

  it("rotate-credentials makes the old password fail; a public key logs in", async () => {
    const login = await newFeed();
    const rotated = await call("POST", `${BASE}/${login.id}/rotate-credentials`, { token, base: runtime.baseUrl });
    expect(rotated.status, rotated.text).toBe(200);
    const password = rotated.body.data.sftp.password as string;
    await expect(connect(login)).rejects.toThrow(/authentication/i);
    await (await connect(login, { password })).list("/");

    const keys = ed25519KeyPair();
    const other = ed25519KeyPair();
    await expect(connect(login, { privateKey: keys.private })).rejects.toThrow(/authentication/i);
    const patched = await call("PATCH", `${BASE}/${login.id}`, {
      token,
      base: runtime.baseUrl,
      body: { sftp: { publicKeys: [keys.public] } },
    });
    expect(patched.status, patched.text).toBe(200);
    const sftp = await connect(login, { privateKey: keys.private });
    await sftp.put(fixture, "custodian-positions-key.csv");
    expect((await sftp.list("/")).map((f) => f.name)).toEqual(["custodian-positions-key.csv"]);
    await expect(connect(login, { privateKey: other.private })).rejects.toThrow(/authentication/i);
  });
});
