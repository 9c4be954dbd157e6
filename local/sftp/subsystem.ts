import { utils, type FileEntry, type SFTPWrapper } from "ssh2";
import type { SftpBackend, SftpDirectory, SftpFile, SftpName } from "./backend";
import { SftpRefusal, STATUS } from "./refusal";

const { OPEN_MODE } = utils.sftp;
/** Entries per READDIR answer. */
const LIST_BATCH = 100;
/** Directory handles one session may hold open (a listing holds its names until closed). */
export const MAX_DIR_HANDLES = 8;

interface OpenDirectory {
  kind: "dir";
  directory: SftpDirectory;
  entries: FileEntry[] | undefined;
  next: number;
}

interface OpenFile {
  kind: "file";
  file: SftpFile;
}

type Handle = OpenDirectory | OpenFile;

/** The SFTP requests served (EXTENDED is answered unsupported). */
type Request =
  | "REALPATH"
  | "STAT"
  | "LSTAT"
  | "FSTAT"
  | "SETSTAT"
  | "FSETSTAT"
  | "OPENDIR"
  | "READDIR"
  | "OPEN"
  | "READ"
  | "WRITE"
  | "CLOSE"
  | "REMOVE"
  | "RENAME"
  | "MKDIR"
  | "RMDIR"
  | "SYMLINK"
  | "READLINK";

/**
 * One login's SFTP subsystem: answers the requests of an `ssh2` SFTP channel from a backend. Owns
 * the handles, the status replies (a backend's SftpRefusal becomes its status, anything else a
 * FAILURE), directory listings in batches, the cap on directory handles, and the channel's end.
 */
export class SftpSubsystem {
  private readonly handles = new Map<string, Handle>();
  private counter = 0;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly backend: SftpBackend,
  ) {
    sftp.on("error", () => undefined); // the connection's end: see "close"
    // The client is done (OpenSSH's sftp sends EOF on `bye` or at the end of a batch and waits for
    // the server to close): close the channel, as sftp-server does when its input ends.
    sftp.on("end", () => sftp.end());
    sftp.on("close", () => this.abandon());
    this.serve("REALPATH", async (r, p: string) => this.named(r, await backend.realpath(p)));
    this.serve("STAT", async (r, p: string) => sftp.attrs(r, await backend.stat(p)));
    this.serve("LSTAT", async (r, p: string) => sftp.attrs(r, await backend.stat(p)));
    this.serve("FSTAT", async (r, h: Buffer) => sftp.attrs(r, await this.handle(h).stat()));
    this.serve("FSETSTAT", async (r, h: Buffer) =>
      this.status(r, this.handles.has(key(h)) ? STATUS.OK : STATUS.FAILURE),
    );
    this.serve("OPENDIR", (r, p: string) => this.opendir(r, p));
    this.serve("READDIR", (r, h: Buffer) => this.readdir(r, h));
    this.serve("OPEN", (r, p: string, flags: number) => this.open(r, p, flags));
    this.serve("READ", (r, h: Buffer, offset: number, length: number) => this.read(r, h, offset, length));
    this.serve("CLOSE", (r, h: Buffer) => this.close(r, h));
    this.serve("READLINK", async (r, p: string) => this.named(r, await backend.readlink(p)));
    // Requests answered OK once done. A WRITE reaches its file at once (nothing awaited before):
    // the backend sees the writes in the order they came.
    const done = <A extends unknown[]>(request: Request, op: (...args: A) => Promise<void>): void =>
      this.serve(request, async (r, ...args: A) => {
        await op(...args);
        this.ok(r);
      });
    done("WRITE", (h: Buffer, offset: number, data: Buffer) => this.file(h).write(offset, data));
    done("SETSTAT", (p: string) => backend.setstat(p));
    done("REMOVE", (p: string) => backend.remove(p));
    done("RENAME", (from: string, to: string) => backend.rename(from, to));
    done("MKDIR", (p: string) => backend.mkdir(p));
    done("RMDIR", (p: string) => backend.rmdir(p));
    done("SYMLINK", (target: string, link: string) => backend.symlink(target, link));
    sftp.on("EXTENDED", (r: number) => this.status(r, STATUS.OP_UNSUPPORTED));
  }

  /** Answers `request` with `work`: a backend's refusal as its status, any other failure as FAILURE. */
  private serve<A extends unknown[]>(request: Request, work: (reqId: number, ...args: A) => Promise<void>): void {
    this.sftp.on(request, (reqId: number, ...args: A): void => {
      void work(reqId, ...args).catch((error: unknown) => {
        if (error instanceof SftpRefusal) return this.status(reqId, error.code, error.reply);
        this.backend.failed(error);
        this.status(reqId, STATUS.FAILURE, "failed");
      });
    });
  }

  private status(reqId: number, code: number, message?: string): void {
    try {
      this.sftp.status(reqId, code, message);
    } catch {
      // The channel has gone: nobody is waiting for the answer.
    }
  }

  private ok(reqId: number): void {
    this.status(reqId, STATUS.OK);
  }

  private named(reqId: number, { path, attrs }: SftpName): void {
    this.sftp.name(reqId, [{ filename: path, longname: path, attrs }]);
  }

  private newHandle(state: Handle): Buffer {
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(this.counter++ >>> 0);
    this.handles.set(key(handle), state);
    return handle;
  }

  /** The open file or directory `handle` names. */
  private handle(handle: Buffer): SftpFile | SftpDirectory {
    const state = this.handles.get(key(handle));
    if (state === undefined) throw invalidHandle();
    return state.kind === "file" ? state.file : state.directory;
  }

  private file(handle: Buffer): SftpFile {
    const state = this.handles.get(key(handle));
    if (state?.kind !== "file") throw invalidHandle();
    return state.file;
  }

  /** The channel has closed: what is still open is given up (uploads never committed, files closed). */
  private abandon(): void {
    for (const state of this.handles.values()) if (state.kind === "file") state.file.abandon();
    this.handles.clear();
  }

  private async opendir(reqId: number, path: string): Promise<void> {
    const directory = await this.backend.openDirectory(path);
    const open = [...this.handles.values()].filter((h) => h.kind === "dir").length;
    if (open >= MAX_DIR_HANDLES) {
      throw new SftpRefusal(
        STATUS.FAILURE,
        `this session has ${open} directory listings open (at most ${MAX_DIR_HANDLES}): close one first`,
      );
    }
    this.sftp.handle(reqId, this.newHandle({ kind: "dir", directory, entries: undefined, next: 0 }));
  }

  private async readdir(reqId: number, handle: Buffer): Promise<void> {
    const state = this.handles.get(key(handle));
    if (state?.kind !== "dir") throw invalidHandle();
    state.entries ??= await state.directory.list();
    const batch = state.entries.slice(state.next, state.next + LIST_BATCH);
    state.next += batch.length;
    if (batch.length === 0) return this.status(reqId, STATUS.EOF);
    this.sftp.name(reqId, batch);
  }

  private async open(reqId: number, path: string, flags: number): Promise<void> {
    const writing = (flags & OPEN_MODE.WRITE) !== 0;
    const file = writing ? await this.backend.openForWrite(path, flags) : await this.backend.openForRead(path);
    this.sftp.handle(reqId, this.newHandle({ kind: "file", file }));
  }

  private async read(reqId: number, handle: Buffer, offset: number, length: number): Promise<void> {
    const data = await this.file(handle).read(offset, length);
    if (data === undefined) return this.status(reqId, STATUS.EOF);
    this.sftp.data(reqId, data);
  }

  private async close(reqId: number, handle: Buffer): Promise<void> {
    const state = this.handles.get(key(handle));
    if (state === undefined) throw invalidHandle();
    this.handles.delete(key(handle));
    if (state.kind === "file") await state.file.close();
    this.ok(reqId);
  }
}

const key = (handle: Buffer): string => handle.toString("hex");
const invalidHandle = (): SftpRefusal => new SftpRefusal(STATUS.FAILURE, "invalid handle");
