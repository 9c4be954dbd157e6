/**
 * A customer's SFTP server for tests and the export benchmark: an `ssh2` Server whose logins see a
 * directory on local disk as `/`. Password and public-key logins for the configured users; what
 * `ssh2-sftp-client` needs to create directories, upload through write streams, rename (overwriting
 * the target, as posix rename does), stat, list, read back and delete. Paths never leave the root.
 * A new host key is generated at each start; its fingerprint is exposed for host-key pinning tests.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Stats } from "node:fs";
import { mkdir, mkdtemp, open, readdir, rename, rm, rmdir, stat, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { Server, utils, type AuthContext, type Attributes, type Connection, type FileEntry, type SFTPWrapper } from "ssh2";
import { publicKeyMatches } from "../local/sftp/public-key";

const { STATUS_CODE, OPEN_MODE } = utils.sftp;
const LIST_BATCH = 100;

export interface SftpTargetUser {
  username: string;
  password?: string;
  /** OpenSSH public key lines (`ssh-ed25519 AAAA…`) accepted for this user. */
  publicKeys?: string[];
}

export interface SftpTargetOptions {
  users: SftpTargetUser[];
  /** The directory served as `/`; a new temporary directory when absent. */
  root?: string;
  host?: string;
  /** Milliseconds each WRITE request waits before it is done: a slow server, so that uploads overlap in time. */
  writeDelayMs?: number;
}

/** One SFTP request the server answered, in order: lets tests see e.g. an upload under a temporary name then a rename. */
export interface SftpOperation {
  op: "open-write" | "close-write" | "rename" | "mkdir" | "remove" | "rmdir";
  path: string;
  to?: string;
  username: string;
}

export interface SftpTarget {
  port: number;
  /** The local directory the logins see as `/`. */
  root: string;
  /** SHA-256 of the host key's SSH wire blob, base64 with padding (what `hostHash: "sha256"` hashes). */
  hostKeyFingerprint: string;
  /** The same as OpenSSH prints it: `SHA256:` + unpadded base64. */
  hostKeyOpenSshFingerprint: string;
  /** The host's public key as an OpenSSH line (`ssh-ed25519 AAAA…`). */
  hostPublicKey: string;
  readonly operations: readonly SftpOperation[];
  /** Successful logins so far, by username. */
  readonly logins: readonly string[];
  /** TCP connections accepted so far (before any SSH handshake). */
  readonly connections: number;
  close(): Promise<void>;
}

function sameSecret(given: string, expected: string | undefined): boolean {
  if (expected === undefined) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function attrsOf(s: Stats): Attributes {
  return { mode: s.mode, uid: s.uid, gid: s.gid, size: s.size, atime: Math.floor(s.atimeMs / 1000), mtime: Math.floor(s.mtimeMs / 1000) };
}

function longname(name: string, s: Stats): string {
  const kind = s.isDirectory() ? "d" : "-";
  return `${kind}rw-r--r--    1 user     user     ${String(s.size).padStart(12)} ${s.mtime.toISOString().slice(0, 16)} ${name}`;
}

function statusOf(error: unknown): number {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return STATUS_CODE.NO_SUCH_FILE;
  if (code === "EACCES" || code === "EPERM") return STATUS_CODE.PERMISSION_DENIED;
  return STATUS_CODE.FAILURE;
}

interface OpenFile {
  kind: "file";
  virtual: string;
  file: FileHandle;
  writing: boolean;
}

interface OpenDir {
  kind: "dir";
  local: string;
  entries: FileEntry[] | undefined;
  next: number;
}

/** One login's SFTP subsystem over the root directory. */
class TargetSession {
  private readonly handles = new Map<string, OpenFile | OpenDir>();
  private counter = 0;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly root: string,
    private readonly username: string,
    private readonly record: (op: SftpOperation) => void,
    private readonly writeDelayMs = 0,
  ) {
    sftp.on("error", () => undefined);
    sftp.on("close", () => void this.closeAll());
    const guard = <A extends unknown[]>(work: (reqId: number, ...args: A) => Promise<void>) =>
      (reqId: number, ...args: A): void => {
        void work(reqId, ...args).catch((error: unknown) => this.status(reqId, statusOf(error), error instanceof Error ? error.message.replace(this.root, "") : "failed"));
      };
    sftp.on("REALPATH", guard(async (r, p: string) => {
      const v = this.virtual(p);
      this.sftp.name(r, [{ filename: v, longname: v, attrs: {} as Attributes }]);
    }));
    sftp.on("STAT", guard((r, p: string) => this.stat(r, p)));
    sftp.on("LSTAT", guard((r, p: string) => this.stat(r, p)));
    sftp.on("FSTAT", guard((r, h: Buffer) => this.fstat(r, h)));
    sftp.on("OPENDIR", guard((r, p: string) => this.opendir(r, p)));
    sftp.on("READDIR", guard((r, h: Buffer) => this.readdir(r, h)));
    sftp.on("OPEN", guard((r, p: string, flags: number) => this.open(r, p, flags)));
    sftp.on("READ", guard((r, h: Buffer, offset: number, length: number) => this.read(r, h, offset, length)));
    sftp.on("WRITE", guard((r, h: Buffer, offset: number, data: Buffer) => this.write(r, h, offset, data)));
    sftp.on("CLOSE", guard((r, h: Buffer) => this.close(r, h)));
    sftp.on("REMOVE", guard(async (r, p: string) => {
      await rm(this.local(p));
      this.record({ op: "remove", path: this.virtual(p), username });
      this.status(r, STATUS_CODE.OK);
    }));
    sftp.on("MKDIR", guard(async (r, p: string) => {
      await mkdir(this.local(p));
      this.record({ op: "mkdir", path: this.virtual(p), username });
      this.status(r, STATUS_CODE.OK);
    }));
    sftp.on("RMDIR", guard(async (r, p: string) => {
      if (this.virtual(p) === "/") return this.status(r, STATUS_CODE.PERMISSION_DENIED, "the root stays");
      await rmdir(this.local(p));
      this.record({ op: "rmdir", path: this.virtual(p), username });
      this.status(r, STATUS_CODE.OK);
    }));
    // posix semantics: an existing target is replaced in one step.
    sftp.on("RENAME", guard(async (r, from: string, to: string) => {
      await rename(this.local(from), this.local(to));
      this.record({ op: "rename", path: this.virtual(from), to: this.virtual(to), username });
      this.status(r, STATUS_CODE.OK);
    }));
    sftp.on("SETSTAT", guard(async (r, p: string) => {
      await stat(this.local(p));
      this.status(r, STATUS_CODE.OK);
    }));
    sftp.on("FSETSTAT", guard(async (r, h: Buffer) => this.status(r, this.handles.has(h.toString("hex")) ? STATUS_CODE.OK : STATUS_CODE.FAILURE)));
    for (const op of ["SYMLINK", "READLINK"] as const) sftp.on(op as "SYMLINK", (r: number) => this.status(r, STATUS_CODE.OP_UNSUPPORTED));
    sftp.on("EXTENDED", (r: number) => this.status(r, STATUS_CODE.OP_UNSUPPORTED));
  }

  /** The normalised absolute path a login sees; `..` above `/` stays at `/`. */
  private virtual(path: string): string {
    if (path.includes("\u0000")) throw Object.assign(new Error("bad path"), { code: "EACCES" });
    return posix.resolve("/", path);
  }

  private local(path: string): string {
    return join(this.root, this.virtual(path));
  }

  private status(reqId: number, code: number, message?: string): void {
    try {
      this.sftp.status(reqId, code, message);
    } catch {
      // The channel has gone.
    }
  }

  private newHandle(state: OpenFile | OpenDir): Buffer {
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(this.counter++);
    this.handles.set(handle.toString("hex"), state);
    return handle;
  }

  private async closeAll(): Promise<void> {
    for (const state of this.handles.values()) if (state.kind === "file") await state.file.close().catch(() => undefined);
    this.handles.clear();
  }

  private async stat(reqId: number, path: string): Promise<void> {
    this.sftp.attrs(reqId, attrsOf(await stat(this.local(path))));
  }

  private async fstat(reqId: number, handle: Buffer): Promise<void> {
    const state = this.handles.get(handle.toString("hex"));
    if (state === undefined) return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    this.sftp.attrs(reqId, attrsOf(state.kind === "file" ? await state.file.stat() : await stat(state.local)));
  }

  private async opendir(reqId: number, path: string): Promise<void> {
    const local = this.local(path);
    if (!(await stat(local)).isDirectory()) return this.status(reqId, STATUS_CODE.NO_SUCH_FILE, "not a directory");
    this.sftp.handle(reqId, this.newHandle({ kind: "dir", local, entries: undefined, next: 0 }));
  }

  private async readdir(reqId: number, handle: Buffer): Promise<void> {
    const state = this.handles.get(handle.toString("hex"));
    if (state?.kind !== "dir") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    if (state.entries === undefined) {
      const entries: FileEntry[] = [];
      for (const name of await readdir(state.local)) {
        const s = await stat(join(state.local, name)).catch(() => undefined);
        if (s !== undefined) entries.push({ filename: name, longname: longname(name, s), attrs: attrsOf(s) });
      }
      state.entries = entries;
    }
    const batch = state.entries.slice(state.next, state.next + LIST_BATCH);
    state.next += batch.length;
    if (batch.length === 0) return this.status(reqId, STATUS_CODE.EOF);
    this.sftp.name(reqId, batch);
  }

  private async open(reqId: number, path: string, flags: number): Promise<void> {
    const writing = (flags & OPEN_MODE.WRITE) !== 0;
    const reading = (flags & OPEN_MODE.READ) !== 0;
    let mode = reading && writing ? "r+" : writing ? "w" : "r";
    if (writing) {
      const creates = (flags & OPEN_MODE.CREAT) !== 0;
      const excl = (flags & OPEN_MODE.EXCL) !== 0;
      const append = (flags & OPEN_MODE.APPEND) !== 0;
      const trunc = (flags & OPEN_MODE.TRUNC) !== 0;
      if (append) mode = reading ? "a+" : "a";
      else if (excl) mode = reading ? "wx+" : "wx";
      else if (trunc || creates) mode = reading ? "w+" : "w";
      else mode = "r+";
    }
    const virtual = this.virtual(path);
    const file = await open(this.local(path), mode);
    if (writing) this.record({ op: "open-write", path: virtual, username: this.username });
    this.sftp.handle(reqId, this.newHandle({ kind: "file", virtual, file, writing }));
  }

  private async read(reqId: number, handle: Buffer, offset: number, length: number): Promise<void> {
    const state = this.handles.get(handle.toString("hex"));
    if (state?.kind !== "file") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await state.file.read(buffer, 0, length, offset);
    if (bytesRead === 0) return this.status(reqId, STATUS_CODE.EOF);
    this.sftp.data(reqId, buffer.subarray(0, bytesRead));
  }

  private async write(reqId: number, handle: Buffer, offset: number, data: Buffer): Promise<void> {
    const state = this.handles.get(handle.toString("hex"));
    if (state?.kind !== "file") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    if (this.writeDelayMs > 0) await new Promise((r) => setTimeout(r, this.writeDelayMs));
    await state.file.write(data, 0, data.length, offset);
    this.status(reqId, STATUS_CODE.OK);
  }

  private async close(reqId: number, handle: Buffer): Promise<void> {
    const key = handle.toString("hex");
    const state = this.handles.get(key);
    if (state === undefined) return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    this.handles.delete(key);
    if (state.kind === "file") {
      await state.file.close();
      if (state.writing) this.record({ op: "close-write", path: state.virtual, username: this.username });
    }
    this.status(reqId, STATUS_CODE.OK);
  }
}

/** Starts a target on a free port of 127.0.0.1 (or `options.host`). */
export async function startSftpTarget(options: SftpTargetOptions): Promise<SftpTarget> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), "sftp-target-")));
  await mkdir(root, { recursive: true });
  const generated = utils.generateKeyPairSync("ed25519");
  const parsed = utils.parseKey(generated.public);
  if (parsed instanceof Error) throw parsed;
  const hostKey = Array.isArray(parsed) ? parsed[0] : parsed;
  if (hostKey === undefined) throw new Error("no host key");
  const digest = createHash("sha256").update(hostKey.getPublicSSH()).digest("base64");
  const operations: SftpOperation[] = [];
  const logins: string[] = [];
  const connections = new Set<Connection>();
  let accepted = 0;
  const users = new Map(options.users.map((u) => [u.username, u]));

  const authenticate = (ctx: AuthContext): boolean => {
    const user = users.get(ctx.username);
    if (ctx.method === "password") return sameSecret(ctx.password, user?.password);
    if (ctx.method === "publickey") return user !== undefined && publicKeyMatches(ctx, user.publicKeys ?? []);
    return false;
  };

  const server = new Server({ hostKeys: [generated.private] }, (client) => {
    accepted++;
    connections.add(client);
    client.on("close", () => connections.delete(client));
    client.on("error", () => undefined);
    let username: string | undefined;
    client.on("authentication", (ctx) => {
      if (!authenticate(ctx)) return ctx.reject(["password", "publickey"]);
      // A public-key probe (no signature yet) is accepted without counting as a login.
      if (ctx.method !== "publickey" || ctx.signature !== undefined) {
        username = ctx.username;
        logins.push(ctx.username);
      }
      ctx.accept();
    });
    client.on("ready", () => {
      client.on("session", (acceptSession) => {
        acceptSession().on("sftp", (acceptSftp) => {
          if (username !== undefined) new TargetSession(acceptSftp(), root, username, (op) => operations.push(op), options.writeDelayMs);
        });
      });
    });
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });

  return {
    port,
    root,
    hostKeyFingerprint: digest,
    hostKeyOpenSshFingerprint: `SHA256:${digest.replace(/=+$/, "")}`,
    hostPublicKey: generated.public.trim(),
    operations,
    logins,
    get connections() {
      return accepted;
    },
    close: async () => {
      for (const c of connections) c.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same as `startSftpTarget`, as an object: `new SftpTargetServer({ users }).start()`. */
export class SftpTargetServer {
  constructor(private readonly options: SftpTargetOptions) {}

  start(): Promise<SftpTarget> {
    return startSftpTarget(this.options);
  }
}
