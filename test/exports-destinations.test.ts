import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { BlobServiceClient } from "@azure/storage-blob";
import { DefaultAzureCredential } from "@azure/identity";
import { utils } from "ssh2";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BlobDestination, emulatorAccount } from "../shared/adapters/blob/blob-destination";
import { SftpDestination, type SftpDestinationOptions } from "../shared/adapters/sftp/sftp-destination";
import { startSftpTarget, type SftpTarget } from "./sftp-target";

const PASSWORD = "s3cret-Customer-Pa55";
const clientKey = utils.generateKeyPairSync("ed25519");
const body = (text: string): Readable => Readable.from([Buffer.from(text)]);

/** The destinations against a real SFTP server (the customer's, as the tests start it) and Azurite. */
describe("export destinations", () => {
  let target: SftpTarget;
  const options = (over: Partial<SftpDestinationOptions> = {}): SftpDestinationOptions => ({
    host: "127.0.0.1",
    port: target.port,
    username: "ids",
    password: PASSWORD,
    path: "/outbound/daily",
    connectTimeoutSeconds: 5,
    timeoutSeconds: 30,
    ...over,
  });

  beforeAll(async () => {
    target = await startSftpTarget({ users: [{ username: "ids", password: PASSWORD, publicKeys: [clientKey.public] }] });
  });
  afterAll(async () => {
    await target.close();
  });

  it("SFTP: creates the directory, uploads under .<name>.part and renames it over the final name; a second upload replaces the file", async () => {
    const sftp = new SftpDestination(options({ hostKeyFingerprint: target.hostKeyOpenSshFingerprint }));
    expect(await sftp.upload("holdings_20261124.csv", body("a,b\n1,2\n"))).toEqual({ bytes: 8 });
    expect(await sftp.upload("holdings_20261124.csv", body("a,b\n3,4\n5,6\n"))).toEqual({ bytes: 12 });
    const dir = join(target.root, "outbound", "daily");
    expect(await readdir(dir)).toEqual(["holdings_20261124.csv"]);
    expect(await readFile(join(dir, "holdings_20261124.csv"), "utf8")).toBe("a,b\n3,4\n5,6\n");
    const writes = target.operations.filter((o) => o.op === "open-write" || o.op === "rename");
    expect(writes.slice(0, 2)).toMatchObject([
      { op: "open-write", path: "/outbound/daily/.holdings_20261124.csv.part" },
      { op: "rename", path: "/outbound/daily/.holdings_20261124.csv.part", to: "/outbound/daily/holdings_20261124.csv" },
    ]);
  });

  it("SFTP: private-key login, and the fingerprint in its other spellings", async () => {
    const sftp = new SftpDestination(options({ password: undefined, privateKey: clientKey.private, path: "keyed", hostKeyFingerprint: target.hostKeyFingerprint }));
    await sftp.upload("k.json", body("{}"));
    expect(await readFile(join(target.root, "keyed", "k.json"), "utf8")).toBe("{}");
  });

  it("SFTP: failures say what is wrong and never carry the secret", async () => {
    const cases: [SftpDestinationOptions, RegExp][] = [
      [options({ password: "wrong-Pa55word-xyz" }), /refused the login of user 'ids': check the password/],
      [options({ port: 1 }), /cannot reach the SFTP server 127\.0\.0\.1:1 \(ECONNREFUSED\)/],
      [options({ hostKeyFingerprint: `SHA256:${Buffer.alloc(32, 1).toString("base64").replace(/=+$/, "")}` }), /host key of 127\.0\.0\.1:\d+ does not match hostKeyFingerprint/],
    ];
    for (const [o, message] of cases) {
      const error = await new SftpDestination(o).upload("x.csv", body("x")).then(() => undefined, (e: unknown) => e as Error);
      expect(error?.message).toMatch(message);
      expect(error?.message).not.toContain(o.password ?? "-");
      expect(error?.message).not.toContain(PASSWORD);
    }
  });

  it("blob: streams prefix + file name into the container with the emulator's key; a second upload overwrites", async () => {
    const connectionString = inject("storageConnectionString");
    const account = emulatorAccount(connectionString);
    expect(account).toBeDefined();
    const service = BlobServiceClient.fromConnectionString(connectionString);
    const container = service.getContainerClient(`exports-dest-${Date.now()}`);
    await container.create();
    const blob = new BlobDestination(container.url, "daily/", new DefaultAzureCredential(), account);
    expect(await blob.upload("prices.csv", body("p\n1\n"))).toEqual({ bytes: 4 });
    expect(await blob.upload("prices.csv", body("p\n2\n3\n"))).toEqual({ bytes: 6 });
    const names: string[] = [];
    for await (const item of container.listBlobsFlat()) names.push(item.name);
    expect(names).toEqual(["daily/prices.csv"]);
    const download = await container.getBlobClient("daily/prices.csv").downloadToBuffer();
    expect(download.toString()).toBe("p\n2\n3\n");
    expect((await container.getBlobClient("daily/prices.csv").getProperties()).contentType).toBe("text/csv; charset=utf-8");
    const missing = new BlobDestination(`${container.url}-missing`, "", new DefaultAzureCredential(), account);
    await expect(missing.upload("x.csv", body("x"))).rejects.toThrow(/404: the container does not exist/);
    await container.delete();
  });
});
