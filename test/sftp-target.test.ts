import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import SftpClient from "ssh2-sftp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSftpTarget, type SftpTarget } from "./sftp-target";
import { ed25519KeyPair } from "../shared/adapters/sftp/ssh-key-pair";

describe("SFTP target (the customer's server in tests)", () => {
  let target: SftpTarget;
  const keys = ed25519KeyPair();
  const clients: SftpClient[] = [];

  beforeAll(async () => {
    target = await startSftpTarget({
      users: [
        { username: "acme", password: "s3cret-pass" },
        { username: "keyed", publicKeys: [keys.public] },
      ],
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await target?.close();
  });

  const connect = async (
    credentials: { username: string; password?: string; privateKey?: string },
    extra: Record<string, unknown> = {},
  ): Promise<SftpClient> => {
    const client = new SftpClient();
    clients.push(client);
    await client.connect({
      host: "127.0.0.1",
      port: target.port,
      retries: 0,
      readyTimeout: 5_000,
      ...credentials,
      ...extra,
    });
    return client;
  };

  it("logs in with a password, creates directories, uploads a stream under a temporary name and renames it over an existing file", async () => {
    const sftp = await connect({ username: "acme", password: "s3cret-pass" });
    expect(await sftp.cwd()).toBe("/");
    await sftp.mkdir("/out/daily", true);
    await sftp.mkdir("/out/daily", true); // already there: fine
    expect(await sftp.exists("/out/daily")).toBe("d");
    await writeFile(join(target.root, "out/daily/holdings.csv"), "old\n");

    await sftp.put(Readable.from([Buffer.from("a,b\n"), Buffer.from("1,2\n")]), "/out/daily/.holdings.csv.part");
    await sftp.rename("/out/daily/.holdings.csv.part", "/out/daily/holdings.csv");

    expect(await readFile(join(target.root, "out/daily/holdings.csv"), "utf8")).toBe("a,b\n1,2\n");
    expect((await sftp.list("/out/daily")).map((f) => f.name)).toEqual(["holdings.csv"]);
    expect((await sftp.stat("/out/daily/holdings.csv")).size).toBe(8);
    expect(await sftp.realPath("out/../out/daily")).toBe("/out/daily");
    const holdings = await sftp.get("/out/daily/holdings.csv");
    expect(Buffer.isBuffer(holdings) ? holdings.toString("utf8") : holdings).toBe("a,b\n1,2\n");
    expect(
      target.operations
        .filter((o) => o.path.startsWith("/out/daily/"))
        .map((o) => `${o.op} ${o.path}${o.to ? ` → ${o.to}` : ""}`),
    ).toEqual([
      "open-write /out/daily/.holdings.csv.part",
      "close-write /out/daily/.holdings.csv.part",
      "rename /out/daily/.holdings.csv.part → /out/daily/holdings.csv",
    ]);
    await sftp.delete("/out/daily/holdings.csv");
    expect(await sftp.exists("/out/daily/holdings.csv")).toBe(false);
  });

  it("stays inside its root: .. above / is /", async () => {
    const sftp = await connect({ username: "acme", password: "s3cret-pass" });
    await sftp.put(Buffer.from("x"), "/../../escape.txt");
    expect(await readFile(join(target.root, "escape.txt"), "utf8")).toBe("x");
    expect(await sftp.realPath("/../..")).toBe("/");
  });

  it("logs in with a public key and refuses a wrong password, an unknown user and a wrong key", async () => {
    const sftp = await connect({ username: "keyed", privateKey: keys.private });
    expect(await sftp.exists("/")).toBe("d");
    await expect(connect({ username: "acme", password: "wrong" })).rejects.toThrow(/authentication/i);
    await expect(connect({ username: "nobody", password: "s3cret-pass" })).rejects.toThrow(/authentication/i);
    await expect(connect({ username: "keyed", privateKey: ed25519KeyPair().private })).rejects.toThrow(
      /authentication/i,
    );
  });

  it("exposes its host key's fingerprint: a client pinning it connects, one pinning another key is refused", async () => {
    expect(target.hostKeyOpenSshFingerprint).toBe(`SHA256:${target.hostKeyFingerprint.replace(/=+$/, "")}`);
    const pinned = (expected: string) => ({
      hostHash: "sha256",
      hostVerifier: (hash: string) => Buffer.from(hash, "hex").toString("base64") === expected,
    });
    const ok = await connect({ username: "acme", password: "s3cret-pass" }, pinned(target.hostKeyFingerprint));
    expect(await ok.exists("/")).toBe("d");
    const other = await startSftpTarget({ users: [{ username: "acme", password: "s3cret-pass" }] });
    try {
      expect(other.hostKeyFingerprint).not.toBe(target.hostKeyFingerprint);
      await expect(
        connect({ username: "acme", password: "s3cret-pass" }, pinned(other.hostKeyFingerprint)),
      ).rejects.toThrow();
    } finally {
      await other.close();
    }
  });
});
