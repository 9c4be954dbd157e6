import { RestError, type ContainerClient } from "@azure/storage-blob";
import type { Logger } from "../../shared/logging";
import { utils, type FileEntry, type SFTPWrapper } from "ssh2";
import { compileFilePattern, type StoredFeed } from "../../shared/domain/feed";
import { dirAttrs, fileAttrs, longname } from "./attributes";
import { contentTypeOf, inboxPath, refusal } from "./paths";
import { BlockUpload, MAX_WAITING_BYTES } from "./upload";
import type { UploadSlots } from "./upload-slots";

const { STATUS_CODE, OPEN_MODE } = utils.sftp;
export const INBOUND = "inbound";
const LIST_BATCH = 100;
/** Directory handles one session may hold open (a listing holds the inbox's names until closed). */
const MAX_DIR_HANDLES = 8;

interface Listing {
  kind: "dir";
  entries: FileEntry[] | undefined;
  next: number;
}

const isNotFound = (error: unknown): boolean => error instanceof RestError && error.statusCode === 404;

export interface InboxSessionOptions {
  container: ContainerClient;
  slots: UploadSlots;
  log: Logger;
  /** Told of each upload once it is committed (visible in `inbound`). */
  committed: (container: string, blobName: string) => void;
}

/** One login's SFTP subsystem: its inbox and its open handles. */
export class InboxSession {
  private readonly handles = new Map<string, BlockUpload | Listing>();
  private handleCounter = 0;
  private readonly matches: (name: string) => boolean;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly feed: StoredFeed,
    private readonly options: InboxSessionOptions,
  ) {
    this.matches = compileFilePattern(feed.filePattern);
    sftp.on("error", () => undefined); // the connection's end; open uploads are never committed
    // The client is done (OpenSSH's sftp sends EOF on `bye` or at the end of a batch and waits for
    // the server to close): close the channel, as sftp-server does when its input ends.
    sftp.on("end", () => sftp.end());
    sftp.on("close", () => this.abandon());
    const guard = <A extends unknown[]>(work: (reqId: number, ...args: A) => Promise<void> | void) =>
      (reqId: number, ...args: A): void => {
        void Promise.resolve()
          .then(() => work(reqId, ...args))
          .catch((error: unknown) => {
            this.log.warn("sftp session failed", { feedId: feed.id, error: error instanceof Error ? error.message : String(error) });
            this.status(reqId, STATUS_CODE.FAILURE, "failed");
          });
      };
    const denied = (reqId: number): void => this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: this inbox takes file uploads and removals only");
    sftp.on("REALPATH", guard((r, p: string) => this.realpath(r, p)));
    sftp.on("STAT", guard((r, p: string) => this.stat(r, p)));
    sftp.on("LSTAT", guard((r, p: string) => this.stat(r, p)));
    sftp.on("FSTAT", guard((r, h: Buffer) => this.fstat(r, h)));
    sftp.on("OPENDIR", guard((r, p: string) => this.opendir(r, p)));
    sftp.on("READDIR", guard((r, h: Buffer) => this.readdir(r, h)));
    sftp.on("OPEN", guard((r, p: string, flags: number) => this.open(r, p, flags)));
    sftp.on("WRITE", (r: number, h: Buffer, offset: number, data: Buffer) => this.write(r, h, offset, data));
    sftp.on("CLOSE", guard((r, h: Buffer) => this.close(r, h)));
    sftp.on("REMOVE", guard((r, p: string) => this.remove(r, p)));
    sftp.on("SETSTAT", guard((r, p: string) => this.status(r, inboxPath(p) === undefined ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.OK)));
    sftp.on("FSETSTAT", guard((r, h: Buffer) => this.status(r, this.handles.has(h.toString("hex")) ? STATUS_CODE.OK : STATUS_CODE.FAILURE)));
    sftp.on("READ", (r: number) => this.status(r, STATUS_CODE.OP_UNSUPPORTED, "files are not read back"));
    for (const op of ["MKDIR", "RMDIR", "RENAME", "SYMLINK", "READLINK"] as const) sftp.on(op as "MKDIR", denied);
    sftp.on("EXTENDED", (r: number) => this.status(r, STATUS_CODE.OP_UNSUPPORTED));
  }

  private get login(): string {
    return this.feed.sftp.username;
  }

  private get log(): Logger {
    return this.options.log;
  }

  private status(reqId: number, code: number, message?: string): void {
    try {
      this.sftp.status(reqId, code, message);
    } catch {
      // The channel has gone: nobody is waiting for the answer.
    }
  }

  private blobName(name: string): string {
    return `${this.feed.id}/${name}`;
  }

  private newHandle(state: BlockUpload | Listing): Buffer {
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(this.handleCounter++ >>> 0);
    this.handles.set(handle.toString("hex"), state);
    return handle;
  }

  /** The channel has closed: uploads still open are never committed, and their slots and memory go. */
  private abandon(): void {
    for (const state of this.handles.values()) {
      if (state.kind !== "upload") continue;
      state.fail();
      this.options.slots.release(this.login);
    }
    this.handles.clear();
  }

  private realpath(reqId: number, path: string): void {
    const p = inboxPath(path);
    if (p === undefined) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, refusal(path));
    const full = p.kind === "root" ? "/" : `/${p.name}`;
    this.sftp.name(reqId, [{ filename: full, longname: full, attrs: p.kind === "root" ? dirAttrs() : fileAttrs(0, undefined) }]);
  }

  private async stat(reqId: number, path: string): Promise<void> {
    const p = inboxPath(path);
    if (p === undefined) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, refusal(path));
    if (p.kind === "root") return void this.sftp.attrs(reqId, dirAttrs());
    try {
      const props = await this.options.container.getBlockBlobClient(this.blobName(p.name)).getProperties();
      this.sftp.attrs(reqId, fileAttrs(props.contentLength ?? 0, props.lastModified));
    } catch (error) {
      if (isNotFound(error)) return this.status(reqId, STATUS_CODE.NO_SUCH_FILE, "no such file");
      throw error;
    }
  }

  private fstat(reqId: number, handle: Buffer): void {
    const state = this.handles.get(handle.toString("hex"));
    if (state === undefined) return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    this.sftp.attrs(reqId, state.kind === "dir" ? dirAttrs() : fileAttrs(state.received, new Date()));
  }

  private opendir(reqId: number, path: string): void {
    const p = inboxPath(path);
    if (p === undefined) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, refusal(path));
    if (p.kind !== "root") return this.status(reqId, STATUS_CODE.NO_SUCH_FILE, "not a directory");
    const open = [...this.handles.values()].filter((h) => h.kind === "dir").length;
    if (open >= MAX_DIR_HANDLES) return this.status(reqId, STATUS_CODE.FAILURE, `this session has ${open} directory listings open (at most ${MAX_DIR_HANDLES}): close one first`);
    this.sftp.handle(reqId, this.newHandle({ kind: "dir", entries: undefined, next: 0 }));
  }

  private async readdir(reqId: number, handle: Buffer): Promise<void> {
    const state = this.handles.get(handle.toString("hex"));
    if (state?.kind !== "dir") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    if (state.entries === undefined) {
      const entries: FileEntry[] = [];
      const prefix = `${this.feed.id}/`;
      for await (const blob of this.options.container.listBlobsFlat({ prefix })) {
        const name = blob.name.slice(prefix.length);
        if (name === "" || name.includes("/")) continue;
        const size = blob.properties.contentLength ?? 0;
        const modified = blob.properties.lastModified;
        entries.push({ filename: name, longname: longname(name, size, modified), attrs: fileAttrs(size, modified) });
      }
      state.entries = entries;
    }
    const batch = state.entries.slice(state.next, state.next + LIST_BATCH);
    state.next += batch.length;
    if (batch.length === 0) return this.status(reqId, STATUS_CODE.EOF);
    this.sftp.name(reqId, batch);
  }

  private async open(reqId: number, path: string, flags: number): Promise<void> {
    const p = inboxPath(path);
    if (p === undefined || p.kind !== "file") return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, refusal(path));
    if ((flags & OPEN_MODE.WRITE) === 0 || (flags & OPEN_MODE.READ) !== 0 || (flags & OPEN_MODE.APPEND) !== 0) {
      return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: files can only be uploaded whole");
    }
    if (!this.matches(p.name)) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: the file name does not match the feed's file pattern");
    const blob = this.options.container.getBlockBlobClient(this.blobName(p.name));
    if ((flags & OPEN_MODE.EXCL) !== 0 && (await blob.exists())) return this.status(reqId, STATUS_CODE.FAILURE, "the file exists");
    const full = this.options.slots.take(this.login);
    if (full !== undefined) {
      this.log.warn("sftp upload refused: too many open uploads", { feedId: this.feed.id, username: this.login });
      return this.status(reqId, STATUS_CODE.FAILURE, full);
    }
    this.sftp.handle(reqId, this.newHandle(new BlockUpload(p.name, blob)));
  }

  private write(reqId: number, handle: Buffer, offset: number, data: Buffer): void {
    const upload = this.handles.get(handle.toString("hex"));
    if (upload?.kind !== "upload") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    if (!upload.failed && upload.waiting + data.length > MAX_WAITING_BYTES) {
      // The client sends without waiting for answers: holding it all is what a cap is for.
      upload.fail();
      this.log.warn("sftp upload failed: too many unanswered writes", { feedId: this.feed.id, fileName: upload.name, waitingBytes: upload.waiting });
    }
    if (upload.failed) return this.status(reqId, STATUS_CODE.FAILURE, `the upload has failed (more than ${MAX_WAITING_BYTES} bytes of writes were sent without waiting for their answers, or a write failed); nothing will be stored`);
    upload.waiting += data.length;
    upload.enqueue(async () => {
      upload.waiting -= data.length;
      if (upload.failed) return this.status(reqId, STATUS_CODE.FAILURE, "the upload has failed; nothing will be stored");
      if (offset !== upload.received) {
        upload.fail();
        return this.status(reqId, STATUS_CODE.FAILURE, "writes must be sequential (no gaps, no overlaps)");
      }
      try {
        await upload.append(data);
      } catch (error) {
        upload.fail();
        this.log.warn("sftp upload staging failed", { feedId: this.feed.id, fileName: upload.name, error: error instanceof Error ? error.message : String(error) });
        return this.status(reqId, STATUS_CODE.FAILURE, "storage failed");
      }
      this.status(reqId, STATUS_CODE.OK);
    });
  }

  private async close(reqId: number, handle: Buffer): Promise<void> {
    const key = handle.toString("hex");
    const state = this.handles.get(key);
    if (state === undefined) return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    this.handles.delete(key);
    if (state.kind === "dir") return this.status(reqId, STATUS_CODE.OK);
    try {
      await state.settled();
      if (state.failed) return this.status(reqId, STATUS_CODE.FAILURE, "the upload failed; nothing was stored");
      await state.commit({
        blobHTTPHeaders: { blobContentType: contentTypeOf(state.name) },
        metadata: { feedId: this.feed.id, source: "sftp" },
      });
    } finally {
      state.dispose();
      this.options.slots.release(this.login);
    }
    this.log.info("sftp file received", { feedId: this.feed.id, fileName: state.name, bytes: state.received });
    this.status(reqId, STATUS_CODE.OK);
    this.options.committed(INBOUND, state.blob.name);
  }

  private async remove(reqId: number, path: string): Promise<void> {
    const p = inboxPath(path);
    if (p === undefined || p.kind !== "file") return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, refusal(path));
    const deleted = await this.options.container.getBlockBlobClient(this.blobName(p.name)).deleteIfExists();
    this.status(reqId, deleted.succeeded ? STATUS_CODE.OK : STATUS_CODE.NO_SUCH_FILE);
  }
}
