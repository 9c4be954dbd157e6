import type { Stats } from "node:fs";
import { mkdir, open, readdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { utils, type Attributes, type FileEntry } from "ssh2";
import type { SftpBackend, SftpDirectory, SftpFile, SftpName } from "../local/sftp/backend";
import { SftpRefusal, STATUS } from "../local/sftp/refusal";
import { attrsOf, DiskFile, onDisk, type DiskFileOptions } from "./sftp-disk-file";

const { OPEN_MODE } = utils.sftp;

/** One SFTP request the server answered, in order: lets tests see e.g. an upload under a temporary name then a rename. */
export interface SftpOperation {
  op: "open-write" | "close-write" | "rename" | "mkdir" | "remove" | "rmdir";
  path: string;
  to?: string;
  username: string;
}

export interface DiskBackendOptions {
  /** The directory served as `/`. */
  root: string;
  username: string;
  record: (op: SftpOperation) => void;
  /** Milliseconds each WRITE waits before it is done. */
  writeDelayMs?: number;
}

function longname(name: string, s: Stats): string {
  const kind = s.isDirectory() ? "d" : "-";
  return `${kind}rw-r--r--    1 user     user     ${String(s.size).padStart(12)} ${s.mtime.toISOString().slice(0, 16)} ${name}`;
}

/** The fs mode an SFTP OPEN with the WRITE flag asks for. */
function writeMode(flags: number): string {
  const reading = (flags & OPEN_MODE.READ) !== 0;
  if ((flags & OPEN_MODE.APPEND) !== 0) return reading ? "a+" : "a";
  if ((flags & OPEN_MODE.EXCL) !== 0) return reading ? "wx+" : "wx";
  if ((flags & OPEN_MODE.TRUNC) !== 0 || (flags & OPEN_MODE.CREAT) !== 0) return reading ? "w+" : "w";
  return "r+";
}

/**
 * A directory on local disk as one login of the test SFTP target sees it: `/` is the root, and `..`
 * above it stays at `/`. Read, write, rename (replacing the target, as posix rename does), mkdir,
 * rmdir and remove; each change is recorded. A failing fs call is refused with its errno's status
 * and its message, the root taken out.
 */
export class DiskBackend implements SftpBackend {
  constructor(private readonly options: DiskBackendOptions) {}

  realpath(path: string): Promise<SftpName> {
    return this.disk(async () => ({ path: this.virtual(path), attrs: {} as Attributes }));
  }

  stat(path: string): Promise<Attributes> {
    return this.disk(async () => attrsOf(await stat(this.local(path))));
  }

  setstat(path: string): Promise<void> {
    return this.disk(async () => void (await stat(this.local(path))));
  }

  openDirectory(path: string): Promise<SftpDirectory> {
    return this.disk(async () => {
      const local = this.local(path);
      if (!(await stat(local)).isDirectory()) throw new SftpRefusal(STATUS.NO_SUCH_FILE, "not a directory");
      return {
        stat: () => this.disk(async () => attrsOf(await stat(local))),
        list: () => this.disk(() => listing(local)),
      };
    });
  }

  openForRead(path: string): Promise<SftpFile> {
    return this.disk(async () => new DiskFile(await open(this.local(path), "r"), this.fileOptions()));
  }

  openForWrite(path: string, flags: number): Promise<SftpFile> {
    return this.disk(async () => {
      const virtual = this.virtual(path);
      const file = await open(this.local(path), writeMode(flags));
      this.record("open-write", virtual);
      return new DiskFile(
        file,
        this.fileOptions(() => this.record("close-write", virtual)),
      );
    });
  }

  remove(path: string): Promise<void> {
    return this.disk(async () => {
      await rm(this.local(path));
      this.record("remove", this.virtual(path));
    });
  }

  /** posix semantics: an existing target is replaced in one step. */
  rename(from: string, to: string): Promise<void> {
    return this.disk(async () => {
      await rename(this.local(from), this.local(to));
      this.record("rename", this.virtual(from), this.virtual(to));
    });
  }

  mkdir(path: string): Promise<void> {
    return this.disk(async () => {
      await mkdir(this.local(path));
      this.record("mkdir", this.virtual(path));
    });
  }

  rmdir(path: string): Promise<void> {
    return this.disk(async () => {
      if (this.virtual(path) === "/") throw new SftpRefusal(STATUS.PERMISSION_DENIED, "the root stays");
      await rmdir(this.local(path));
      this.record("rmdir", this.virtual(path));
    });
  }

  async symlink(): Promise<void> {
    throw new SftpRefusal(STATUS.OP_UNSUPPORTED);
  }

  async readlink(): Promise<SftpName> {
    throw new SftpRefusal(STATUS.OP_UNSUPPORTED);
  }

  failed(): void {
    // Every fs failure is a refusal (disk); nothing else is expected here.
  }

  private record(op: SftpOperation["op"], path: string, to?: string): void {
    this.options.record({ op, path, ...(to !== undefined ? { to } : {}), username: this.options.username });
  }

  private disk<T>(work: () => Promise<T>): Promise<T> {
    return onDisk(this.options.root, work);
  }

  /** The normalised absolute path a login sees; `..` above `/` stays at `/`. */
  private virtual(path: string): string {
    if (path.includes("\u0000")) throw Object.assign(new Error("bad path"), { code: "EACCES" });
    return posix.resolve("/", path);
  }

  private local(path: string): string {
    return join(this.options.root, this.virtual(path));
  }

  private fileOptions(closedWrite?: () => void): DiskFileOptions {
    return { root: this.options.root, writeDelayMs: this.options.writeDelayMs ?? 0, closedWrite };
  }
}

async function listing(local: string): Promise<FileEntry[]> {
  const entries: FileEntry[] = [];
  for (const name of await readdir(local)) {
    const s = await stat(join(local, name)).catch(() => undefined);
    if (s !== undefined) entries.push({ filename: name, longname: longname(name, s), attrs: attrsOf(s) });
  }
  return entries;
}
