import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { DefaultAzureCredential } from "@azure/identity";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { UploadAttempt } from "../shared/ports/exports";
import { BlobDestination } from "../shared/adapters/blob/blob-destination";
import { emulatorAccountOf, parseStorageConnectionString } from "../shared/domain/storage-connection-string";
import { OutboundHostGuard } from "../shared/adapters/http/outbound-host-guard";
import { SftpDestination, type SftpDestinationOptions } from "../shared/adapters/sftp/sftp-destination";
import { startSftpTarget, type SftpTarget } from "./sftp-target";
import { ed25519KeyPair } from "../shared/adapters/sftp/ssh-key-pair";

const PASSWORD = "s3cret-Customer-Pa55";
const clientKey = ed25519KeyPair();
const body = (text: string): Readable => Readable.from([Buffer.from(text)]);
/** An attempt that always confirms. */
const attempt = (id: string, confirm: () => Promise<void> = async () => undefined): UploadAttempt => ({ id, confirm });
const open = new OutboundHostGuard({ allowPrivateNetworks: true });

/** A TCP server on a free loopback port: `silent` never answers, `http` answers like a web server, `closed` is a port nothing listens on. */
async function listener(
  kind: "silent" | "http",
): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server =
    kind === "http"
      ? createHttpServer((_req, res) => res.end("hello"))
      : createServer((socket) => {
          sockets.push(socket);
          socket.on("error", () => undefined);
        });
  let accepted = 0;
  server.on("connection", (s: Socket) => {
    accepted++;
    s.on("error", () => undefined);
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
  return {
    port,
    accepted: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The destinations against a real SFTP server (the customer's, as the tests start it) and Azurite. */
describe("export destinations", () => {
  let target: SftpTarget;
  let container: ContainerClient;
  const options = (over: Partial<SftpDestinationOptions> = {}): SftpDestinationOptions => ({
    host: "127.0.0.1",
    port: target.port,
    username: "ids",
    password: PASSWORD,
    path: "/outbound/daily",
    connectTimeoutSeconds: 3,
    timeoutSeconds: 30,
    ...over,
  });
  const sftpError = (o: SftpDestinationOptions, guard = open): Promise<Error | undefined> =>
    new SftpDestination(o, guard).upload("x.csv", body("x"), attempt("t-1")).then(
      () => undefined,
      (e: unknown) => e as Error,
    );

  beforeAll(async () => {
    target = await startSftpTarget({
      users: [{ username: "ids", password: PASSWORD, publicKeys: [clientKey.public] }],
    });
    const connectionString = inject("storageConnectionString");
    container = BlobServiceClient.fromConnectionString(connectionString).getContainerClient(
      `exports-dest-${Date.now()}`,
    );
    await container.create();
  });
  afterAll(async () => {
    await target.close();
    await container.delete();
  });

  it("SFTP: creates the directory, uploads under .<name>.<attempt>.part and renames it over the final name; a second upload replaces the file", async () => {
    const sftp = new SftpDestination(options({ hostKeyFingerprint: target.hostKeyOpenSshFingerprint }), open);
    expect(await sftp.upload("holdings_20261124.csv", body("a,b\n1,2\n"), attempt("3f9a0b1c2d4e-1"))).toEqual({
      bytes: 8,
    });
    expect(await sftp.upload("holdings_20261124.csv", body("a,b\n3,4\n5,6\n"), attempt("77aa0b1c2d4e-1"))).toEqual({
      bytes: 12,
    });
    const dir = join(target.root, "outbound", "daily");
    expect(await readdir(dir)).toEqual(["holdings_20261124.csv"]);
    expect(await readFile(join(dir, "holdings_20261124.csv"), "utf8")).toBe("a,b\n3,4\n5,6\n");
    const writes = target.operations.filter((o) => o.op === "open-write" || o.op === "rename");
    expect(writes.slice(0, 4)).toMatchObject([
      { op: "open-write", path: "/outbound/daily/.holdings_20261124.csv.3f9a0b1c2d4e-1.part" },
      {
        op: "rename",
        path: "/outbound/daily/.holdings_20261124.csv.3f9a0b1c2d4e-1.part",
        to: "/outbound/daily/holdings_20261124.csv",
      },
      { op: "open-write", path: "/outbound/daily/.holdings_20261124.csv.77aa0b1c2d4e-1.part" },
      {
        op: "rename",
        path: "/outbound/daily/.holdings_20261124.csv.77aa0b1c2d4e-1.part",
        to: "/outbound/daily/holdings_20261124.csv",
      },
    ]);
  });

  it("SFTP: a delivery removes the temporary files of its own name that dead attempts left (and not those of other names)", async () => {
    const dir = join(target.root, "leftovers");
    await mkdir(dir, { recursive: true });
    for (const name of [
      ".prices.csv.part",
      ".prices.csv.0a1b2c3d4e5f-1.part",
      ".prices.csv.extra.0a1b2c3d4e5f-1.part",
      ".prices.csv.0a1b2c3d4e5f-2.part",
    ])
      await writeFile(join(dir, name), "half");
    await new SftpDestination(options({ path: "/leftovers" }), open).upload(
      "prices.csv",
      body("p\n1\n"),
      attempt("0a1b2c3d4e5f-3"),
    );
    expect((await readdir(dir)).sort()).toEqual([".prices.csv.extra.0a1b2c3d4e5f-1.part", "prices.csv"]);
  });

  it("SFTP: an attempt that does not confirm delivers nothing and leaves no temporary file", async () => {
    const sftp = new SftpDestination(options({ path: "/unconfirmed" }), open);
    const refused = new Error("the export was deleted");
    await expect(
      sftp.upload(
        "a.csv",
        body("a\n"),
        attempt("1b2c3d4e5f60-1", async () => Promise.reject(refused)),
      ),
    ).rejects.toBe(refused);
    expect(await readdir(join(target.root, "unconfirmed"))).toEqual([]);
  });

  it("SFTP: names that render as . or .. are refused before any connection", async () => {
    const before = target.connections;
    for (const name of [".", "..", ".hidden", "a..b"]) {
      const error = await new SftpDestination(options(), open).upload(name, body("x"), attempt("t-1")).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message, name).toMatch(/^the file name ".*" .*; nothing was written$/);
    }
    expect(target.connections).toBe(before);
  });

  it("SFTP: private-key login, and the fingerprint in its other spellings", async () => {
    const sftp = new SftpDestination(
      options({
        password: undefined,
        privateKey: clientKey.private,
        path: "keyed",
        hostKeyFingerprint: target.hostKeyFingerprint,
      }),
      open,
    );
    await sftp.upload("k.json", body("{}"), attempt("t-1"));
    expect(await readFile(join(target.root, "keyed", "k.json"), "utf8")).toBe("{}");
  });

  it("SFTP: a wrong login or host key says so, never with the secret", async () => {
    const cases: [SftpDestinationOptions, RegExp][] = [
      [options({ password: "wrong-Pa55word-xyz" }), /refused the login of user 'ids': check the password/],
      [
        options({ hostKeyFingerprint: `SHA256:${Buffer.alloc(32, 1).toString("base64").replace(/=+$/, "")}` }),
        /host key of 127\.0\.0\.1:\d+ does not match hostKeyFingerprint/,
      ],
    ];
    for (const [o, message] of cases) {
      const error = await sftpError(o);
      expect(error?.message).toMatch(message);
      expect(error?.message).not.toContain(o.password ?? "-");
      expect(error?.message).not.toContain(PASSWORD);
    }
  });

  it("SFTP: a closed port, a server that never answers and a web server all get the same answer (no probe of what listens where)", async () => {
    const silent = await listener("silent");
    const web = await listener("http");
    const closed = await listener("silent");
    await closed.close();
    try {
      const answers = await Promise.all(
        [closed.port, silent.port, web.port].map(async (port) =>
          (await sftpError(options({ port, connectTimeoutSeconds: 2 })))?.message.replace(`:${port}`, ":PORT"),
        ),
      );
      expect(answers[0]).toBe(
        "could not open an SSH session with 127.0.0.1:PORT within 2 s (no answer, the connection refused or closed, or not an SSH server): check the host, the port and the server's firewall",
      );
      expect(new Set(answers).size).toBe(1);
    } finally {
      await silent.close();
      await web.close();
    }
  });

  it("SFTP: with private networks not allowed, a loopback, private or link-local host is refused before any connection, whatever listens there", async () => {
    const strict = new OutboundHostGuard({ allowPrivateNetworks: false });
    const silent = await listener("silent");
    const before = target.connections;
    try {
      for (const [host, port] of [
        ["127.0.0.1", target.port],
        ["127.0.0.1", silent.port],
        ["::ffff:127.0.0.1", target.port],
        ["localhost", target.port],
        ["169.254.169.254", 22],
        ["10.0.0.1", 22],
      ] as const) {
        const error = await sftpError(options({ host, port }), strict);
        expect(error?.message, host).toMatch(/exports must reach public addresses$/);
      }
    } finally {
      await silent.close();
    }
    expect(target.connections).toBe(before);
    expect(silent.accepted()).toBe(0);
  });

  it("blob: stages prefix + file name as blocks and commits once; a second upload overwrites", async () => {
    const account = emulatorAccountOf(parseStorageConnectionString(inject("storageConnectionString")));
    expect(account).toBeDefined();
    const blob = new BlobDestination(container.url, "daily/", new DefaultAzureCredential(), account);
    expect(await blob.upload("prices.csv", body("p\n1\n"), attempt("a1-1"))).toEqual({ bytes: 4 });
    expect(await blob.upload("prices.csv", body("p\n2\n3\n"), attempt("a2-1"))).toEqual({ bytes: 6 });
    const names: string[] = [];
    for await (const item of container.listBlobsFlat({ prefix: "daily/" })) names.push(item.name);
    expect(names).toEqual(["daily/prices.csv"]);
    const download = await container.getBlobClient("daily/prices.csv").downloadToBuffer();
    expect(download.toString()).toBe("p\n2\n3\n");
    expect((await container.getBlobClient("daily/prices.csv").getProperties()).contentType).toBe(
      "text/csv; charset=utf-8",
    );
    const missing = new BlobDestination(`${container.url}-missing`, "", new DefaultAzureCredential(), account);
    await expect(missing.upload("x.csv", body("x"), attempt("a3-1"))).rejects.toThrow(
      /404: the container does not exist/,
    );
  });

  it("blob: an upload larger than a block, and one whose attempt does not confirm (nothing appears)", async () => {
    const account = emulatorAccountOf(parseStorageConnectionString(inject("storageConnectionString")));
    const blob = new BlobDestination(container.url, "big/", new DefaultAzureCredential(), account);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const big = Readable.from(Array.from({ length: 9 }, (_, i) => Buffer.concat([chunk, Buffer.from(String(i))])));
    expect(await blob.upload("big.csv", big, attempt("b1-1"))).toEqual({ bytes: 9 * (chunk.length + 1) });
    const blocks = await container.getBlockBlobClient("big/big.csv").getBlockList("committed");
    expect(blocks.committedBlocks?.length).toBe(3);
    expect((await container.getBlobClient("big/big.csv").downloadToBuffer()).length).toBe(9 * (chunk.length + 1));

    const refused = new Error("the export was deleted");
    await expect(
      blob.upload(
        "never.csv",
        body("n\n"),
        attempt("b2-1", async () => Promise.reject(refused)),
      ),
    ).rejects.toBe(refused);
    expect(await container.getBlobClient("big/never.csv").exists()).toBe(false);
  });

  it("blob: two uploads of one name at once leave one of them whole, never a mix", async () => {
    const account = emulatorAccountOf(parseStorageConnectionString(inject("storageConnectionString")));
    const blob = new BlobDestination(container.url, "race/", new DefaultAzureCredential(), account);
    const content = (c: string): Buffer[] => Array.from({ length: 12 }, () => Buffer.alloc(512 * 1024, c));
    const outcomes = await Promise.allSettled([
      blob.upload("r.csv", Readable.from(content("a")), attempt("ra-1")),
      blob.upload("r.csv", Readable.from(content("b")), attempt("rb-1")),
    ]);
    expect(outcomes.some((o) => o.status === "fulfilled")).toBe(true);
    const stored = await container.getBlobClient("race/r.csv").downloadToBuffer();
    expect(stored.length).toBe(12 * 512 * 1024);
    expect(
      [Buffer.alloc(stored.length, "a"), Buffer.alloc(stored.length, "b")].some((whole) => whole.equals(stored)),
    ).toBe(true);
  });
});
