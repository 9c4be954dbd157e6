import { execFile, spawnSync } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client, utils, type SFTPWrapper } from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DIR_HANDLES } from "../local/sftp/subsystem";
import { startSftpTarget, type SftpTarget } from "./sftp-target";
import { tempDir } from "./runtime";
import { ed25519KeyPair } from "../shared/adapters/sftp/ssh-key-pair";

const { STATUS_CODE } = utils.sftp;
const hasSftpClient = spawnSync("sftp", ["-V"]).error === undefined;

type Reply<T> = (callback: (error: (Error & { code?: number }) | null | undefined, value: T) => void) => void;
/** An SFTP request's answer, or the error it was refused with. */
const ask = <T>(request: Reply<T>): Promise<T | (Error & { code?: number })> =>
  new Promise((resolve) => request((error, value) => resolve(error ?? value)));
/** An SFTP request's answer; throws the error it was refused with. */
const must = async <T>(request: Reply<T>): Promise<T> => {
  const answer = await ask(request);
  if (answer instanceof Error) throw answer;
  return answer;
};

/**
 * The SFTP subsystem (local/sftp/subsystem.ts) that the local drop and the tests' target share: its
 * handles, listing batches, directory-handle cap, refusals and the channel's end, seen through the
 * target (a directory on disk) by a raw ssh2 client and by OpenSSH's sftp.
 */
describe("SFTP subsystem (shared by the drop and the target)", () => {
  let target: SftpTarget;
  let conn: Client;
  let sftp: SFTPWrapper;
  const keys = ed25519KeyPair();
  const data = tempDir("sftp-subsystem-");

  beforeAll(async () => {
    target = await startSftpTarget({
      users: [{ username: "acme", password: "s3cret-pass", publicKeys: [keys.public] }],
    });
    conn = new Client();
    sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
      conn.on("error", reject);
      conn.on("ready", () => conn.sftp((error, wrapper) => (error ? reject(error) : resolve(wrapper))));
      conn.connect({ host: "127.0.0.1", port: target.port, username: "acme", password: "s3cret-pass" });
    });
  });
  afterAll(async () => {
    conn?.end();
    await target?.close();
    data.remove();
  });

  const opendir = (path: string) => ask<Buffer>((cb) => sftp.opendir(path, cb));
  const close = (handle: Buffer) => ask<undefined>((cb) => sftp.close(handle, (e) => cb(e, undefined)));

  it("a listing longer than one answer comes in batches of 100, every entry once", async () => {
    await mkdir(join(target.root, "many"));
    const names = Array.from({ length: 250 }, (_, i) => `file-${String(i).padStart(3, "0")}.csv`);
    await Promise.all(names.map((n) => writeFile(join(target.root, "many", n), "x")));
    const handle = await must<Buffer>((cb) => sftp.opendir("/many", cb));
    const batches: number[] = [];
    const listed: string[] = [];
    for (;;) {
      const batch = await ask<{ filename: string }[]>((cb) => sftp.readdir(handle, cb));
      if (batch instanceof Error) {
        expect(batch.code).toBe(STATUS_CODE.EOF);
        break;
      }
      batches.push(batch.length);
      listed.push(...batch.map((e) => e.filename));
    }
    await close(handle);
    expect(batches).toEqual([100, 100, 50]);
    expect(listed.sort()).toEqual(names);
  });

  it(`a session holds at most ${MAX_DIR_HANDLES} directory handles; closing one lets another open`, async () => {
    const handles: Buffer[] = [];
    for (let i = 0; i < MAX_DIR_HANDLES; i++) handles.push(await must<Buffer>((cb) => sftp.opendir("/", cb)));
    const refused = await opendir("/");
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe(
      `this session has ${MAX_DIR_HANDLES} directory listings open (at most ${MAX_DIR_HANDLES}): close one first`,
    );
    await close(handles.pop() as Buffer);
    handles.push(await must<Buffer>((cb) => sftp.opendir("/", cb)));
    for (const h of handles) expect(await close(h)).toBeUndefined();
  });

  it("a handle the session did not give out, or of the wrong kind, is answered 'invalid handle'", async () => {
    const unknown = Buffer.from([0xff, 0xff, 0xff, 0xff]);
    await writeFile(join(target.root, "one.csv"), "a,b\n");
    const file = await must<Buffer>((cb) => sftp.open("/one.csv", "r", cb));
    const dir = await must<Buffer>((cb) => sftp.opendir("/", cb));
    const answers = [
      await ask((cb) => sftp.read(unknown, Buffer.alloc(4), 0, 4, 0, (e) => cb(e, undefined))),
      await ask((cb) => sftp.write(unknown, Buffer.from("x"), 0, 1, 0, (e) => cb(e, undefined))),
      await ask((cb) => sftp.fstat(unknown, cb)),
      await close(unknown),
      await ask((cb) => sftp.readdir(file, cb)),
      await ask((cb) => sftp.write(dir, Buffer.from("x"), 0, 1, 0, (e) => cb(e, undefined))),
    ];
    for (const answer of answers)
      expect(answer).toMatchObject({ code: STATUS_CODE.FAILURE, message: "invalid handle" });
    expect(await close(file)).toBeUndefined();
    expect(await close(dir)).toBeUndefined();
    expect(await readFile(join(target.root, "one.csv"), "utf8")).toBe("a,b\n");
  });

  it("a backend's refusal reaches the client as its status and message", async () => {
    expect(await ask((cb) => sftp.rmdir("/", (e) => cb(e, undefined)))).toMatchObject({
      code: STATUS_CODE.PERMISSION_DENIED,
      message: "the root stays",
    });
    const missing = await ask((cb) => sftp.stat("/nowhere/x.csv", cb));
    expect(missing).toMatchObject({ code: STATUS_CODE.NO_SUCH_FILE });
    expect((missing as Error).message).not.toContain(target.root);
    expect(await ask((cb) => sftp.symlink("/one.csv", "/link.csv", (e) => cb(e, undefined)))).toMatchObject({
      code: STATUS_CODE.OP_UNSUPPORTED,
    });
  });

  it.skipIf(!hasSftpClient)(
    "OpenSSH's sftp in batch mode finishes: the server closes the channel when the client's input ends",
    async () => {
      const keyPath = join(data.path, "id_ed25519");
      await writeFile(keyPath, keys.private);
      await chmod(keyPath, 0o600);
      await writeFile(join(data.path, "batch"), "put batch /from-batch.txt\nls /\n");
      const args = [
        "-b",
        "batch",
        "-i",
        keyPath,
        "-P",
        String(target.port),
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "BatchMode=yes",
        "acme@127.0.0.1",
      ];
      const outcome = await new Promise<Error | null>((resolve) =>
        execFile("sftp", args, { cwd: data.path, timeout: 20_000 }, (error) => resolve(error)),
      );
      expect(outcome).toBeNull();
      expect(await readFile(join(target.root, "from-batch.txt"), "utf8")).toBe("put batch /from-batch.txt\nls /\n");
    },
  );
});
