/**
 * The local runtime's SFTP drop: what the storage account's SFTP endpoint is in Azure. One login per
 * feed (its `sftp.username`, the password checked against the stored hash or one of its OpenSSH
 * public keys); each login sees only its inbox, the blobs `inbound/<feedId>/<name>`, as `/`. Uploads
 * stream into the blob block by block and become visible when the upload closes.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { BlobServiceClient, RestError, type BlockBlobClient, type ContainerClient } from "@azure/storage-blob";
import { Server, utils, type Attributes, type AuthContext, type Connection, type FileEntry, type SFTPWrapper } from "ssh2";
import { compileFilePattern, type StoredFeed } from "../shared/domain/feed";
import { verifySecret } from "../shared/domain/secret-hash";
import type { FeedRepository } from "../shared/ports/feed-repository";
import { contentTypeOf, inboxPath } from "./sftp/paths";
import { publicKeyMatches } from "./sftp/public-key";

const { STATUS_CODE, OPEN_MODE } = utils.sftp;
const CONTAINER = "inbound";
/** Bytes gathered before they are staged as one block: memory per upload stays about this size. */
const BLOCK_BYTES = 4 * 1024 * 1024;
const LIST_BATCH = 100;
const FILE_MODE = 0o100644;
const DIR_MODE = 0o040755;

export interface SftpServerOptions {
  hostKeyPath: string;
  feeds: () => FeedRepository;
  storageConnectionString: string;
  log: (line: string) => void;
  /** Told of each upload once it is committed (visible in `inbound`): the local blob trigger picks it up at once. */
  committed?: (container: string, blobName: string) => void;
}

/** The host key kept under the data folder, created on first start (RSA, PKCS#1 PEM, which ssh2 reads). */
export function loadHostKey(path: string): Buffer {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    writeFileSync(path, privateKey, { mode: 0o600 });
  }
  return readFileSync(path);
}

/** `feed-<hex>` → the feed it belongs to, or undefined (no such login). */
async function feedOfUsername(feeds: FeedRepository, username: string): Promise<StoredFeed | undefined> {
  const m = /^feed-([0-9a-f]{1,64})$/.exec(username);
  if (m === null) return undefined;
  try {
    const feed = await feeds.get(`fd_${m[1]}`);
    return feed?.sftp.username === username ? feed : undefined;
  } catch {
    return undefined;
  }
}

interface Upload {
  kind: "upload";
  name: string;
  blob: BlockBlobClient;
  blockPrefix: string;
  blockIds: string[];
  chunks: Buffer[];
  chunkBytes: number;
  received: number;
  failed: boolean;
  /** WRITEs and the CLOSE run one after another, in arrival order. */
  queue: Promise<void>;
}

interface Listing {
  kind: "dir";
  entries: FileEntry[] | undefined;
  next: number;
}

const dirAttrs = (): Attributes => ({ mode: DIR_MODE, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 });
const fileAttrs = (size: number, modified: Date | undefined): Attributes => {
  const seconds = Math.floor((modified?.getTime() ?? Date.now()) / 1000);
  return { mode: FILE_MODE, uid: 0, gid: 0, size, atime: seconds, mtime: seconds };
};
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
function longname(name: string, size: number, modified: Date): string {
  const time = `${MONTHS[modified.getUTCMonth()]} ${String(modified.getUTCDate()).padStart(2)} ${String(modified.getUTCHours()).padStart(2, "0")}:${String(modified.getUTCMinutes()).padStart(2, "0")}`;
  return `-rw-r--r--    1 feed     feed     ${String(size).padStart(12)} ${time} ${name}`;
}

const isNotFound = (error: unknown): boolean => error instanceof RestError && error.statusCode === 404;

/** One login's SFTP subsystem: its inbox and its open handles. */
class InboxSession {
  private readonly handles = new Map<string, Upload | Listing>();
  private handleCounter = 0;
  private readonly matches: (name: string) => boolean;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly feed: StoredFeed,
    private readonly container: ContainerClient,
    private readonly log: (line: string) => void,
    private readonly committed: (container: string, blobName: string) => void = () => undefined,
  ) {
    this.matches = compileFilePattern(feed.filePattern);
    sftp.on("error", () => undefined); // the connection's end; open uploads are never committed
    // The client is done (OpenSSH's sftp sends EOF on `bye` or at the end of a batch and waits for
    // the server to close): close the channel, as sftp-server does when its input ends.
    sftp.on("end", () => sftp.end());
    const guard = <A extends unknown[]>(work: (reqId: number, ...args: A) => Promise<void> | void) =>
      (reqId: number, ...args: A): void => {
        void Promise.resolve()
          .then(() => work(reqId, ...args))
          .catch((error: unknown) => {
            this.log(`sftp: ${feed.id}: ${error instanceof Error ? error.message : String(error)}`);
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
    sftp.on("WRITE", guard((r, h: Buffer, offset: number, data: Buffer) => this.write(r, h, offset, data)));
    sftp.on("CLOSE", guard((r, h: Buffer) => this.close(r, h)));
    sftp.on("REMOVE", guard((r, p: string) => this.remove(r, p)));
    sftp.on("SETSTAT", guard((r, p: string) => this.status(r, inboxPath(p) === undefined ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.OK)));
    sftp.on("FSETSTAT", guard((r, h: Buffer) => this.status(r, this.handles.has(h.toString("hex")) ? STATUS_CODE.OK : STATUS_CODE.FAILURE)));
    sftp.on("READ", (r: number) => this.status(r, STATUS_CODE.OP_UNSUPPORTED, "files are not read back"));
    for (const op of ["MKDIR", "RMDIR", "RENAME", "SYMLINK", "READLINK"] as const) sftp.on(op as "MKDIR", denied);
    sftp.on("EXTENDED", (r: number) => this.status(r, STATUS_CODE.OP_UNSUPPORTED));
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

  private newHandle(state: Upload | Listing): Buffer {
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(this.handleCounter++);
    this.handles.set(handle.toString("hex"), state);
    return handle;
  }

  private realpath(reqId: number, path: string): void {
    const p = inboxPath(path);
    if (p === undefined) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: outside the inbox");
    const full = p.kind === "root" ? "/" : `/${p.name}`;
    this.sftp.name(reqId, [{ filename: full, longname: full, attrs: p.kind === "root" ? dirAttrs() : fileAttrs(0, undefined) }]);
  }

  private async stat(reqId: number, path: string): Promise<void> {
    const p = inboxPath(path);
    if (p === undefined) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: outside the inbox");
    if (p.kind === "root") return void this.sftp.attrs(reqId, dirAttrs());
    try {
      const props = await this.container.getBlockBlobClient(this.blobName(p.name)).getProperties();
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
    if (p === undefined) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: outside the inbox");
    if (p.kind !== "root") return this.status(reqId, STATUS_CODE.NO_SUCH_FILE, "not a directory");
    this.sftp.handle(reqId, this.newHandle({ kind: "dir", entries: undefined, next: 0 }));
  }

  private async readdir(reqId: number, handle: Buffer): Promise<void> {
    const state = this.handles.get(handle.toString("hex"));
    if (state?.kind !== "dir") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    if (state.entries === undefined) {
      const entries: FileEntry[] = [];
      const prefix = `${this.feed.id}/`;
      for await (const blob of this.container.listBlobsFlat({ prefix })) {
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
    if (p === undefined || p.kind !== "file") return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: outside the inbox");
    if ((flags & OPEN_MODE.WRITE) === 0 || (flags & OPEN_MODE.READ) !== 0 || (flags & OPEN_MODE.APPEND) !== 0) {
      return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: files can only be uploaded whole");
    }
    if (!this.matches(p.name)) return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: the file name does not match the feed's file pattern");
    const blob = this.container.getBlockBlobClient(this.blobName(p.name));
    if ((flags & OPEN_MODE.EXCL) !== 0 && (await blob.exists())) return this.status(reqId, STATUS_CODE.FAILURE, "the file exists");
    const upload: Upload = {
      kind: "upload",
      name: p.name,
      blob,
      blockPrefix: randomBytes(12).toString("hex"),
      blockIds: [],
      chunks: [],
      chunkBytes: 0,
      received: 0,
      failed: false,
      queue: Promise.resolve(),
    };
    this.sftp.handle(reqId, this.newHandle(upload));
  }

  /** Stages what has been gathered as the next block. */
  private async stage(upload: Upload): Promise<void> {
    if (upload.chunkBytes === 0) return;
    const body = Buffer.concat(upload.chunks, upload.chunkBytes);
    upload.chunks = [];
    upload.chunkBytes = 0;
    // Block ids of one blob all have the same length.
    const id = Buffer.from(`${upload.blockPrefix}-${String(upload.blockIds.length).padStart(6, "0")}`).toString("base64");
    await upload.blob.stageBlock(id, body, body.length);
    upload.blockIds.push(id);
  }

  private write(reqId: number, handle: Buffer, offset: number, data: Buffer): void {
    const upload = this.handles.get(handle.toString("hex"));
    if (upload?.kind !== "upload") return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    upload.queue = upload.queue.then(async () => {
      if (upload.failed) return this.status(reqId, STATUS_CODE.FAILURE, "the upload has failed");
      if (offset !== upload.received) {
        upload.failed = true;
        return this.status(reqId, STATUS_CODE.FAILURE, "writes must be sequential (no gaps, no overlaps)");
      }
      // ssh2 reuses nothing after the event, but copy to be safe: the chunk outlives this call.
      upload.chunks.push(Buffer.from(data));
      upload.chunkBytes += data.length;
      upload.received += data.length;
      try {
        if (upload.chunkBytes >= BLOCK_BYTES) await this.stage(upload);
      } catch (error) {
        upload.failed = true;
        this.log(`sftp: ${this.feed.id}/${upload.name}: staging failed: ${error instanceof Error ? error.message : String(error)}`);
        return this.status(reqId, STATUS_CODE.FAILURE, "storage failed");
      }
      this.status(reqId, STATUS_CODE.OK);
    }).catch(() => {
      upload.failed = true;
    });
  }

  private async close(reqId: number, handle: Buffer): Promise<void> {
    const key = handle.toString("hex");
    const state = this.handles.get(key);
    if (state === undefined) return this.status(reqId, STATUS_CODE.FAILURE, "invalid handle");
    this.handles.delete(key);
    if (state.kind === "dir") return this.status(reqId, STATUS_CODE.OK);
    await state.queue;
    if (state.failed) return this.status(reqId, STATUS_CODE.FAILURE, "the upload failed; nothing was stored");
    await this.stage(state);
    await state.blob.commitBlockList(state.blockIds, {
      blobHTTPHeaders: { blobContentType: contentTypeOf(state.name) },
      metadata: { feedId: this.feed.id, source: "sftp" },
    });
    this.log(`sftp: ${this.feed.id}: received ${state.name} (${state.received} bytes)`);
    this.status(reqId, STATUS_CODE.OK);
    this.committed(CONTAINER, state.blob.name);
  }

  private async remove(reqId: number, path: string): Promise<void> {
    const p = inboxPath(path);
    if (p === undefined || p.kind !== "file") return this.status(reqId, STATUS_CODE.PERMISSION_DENIED, "permission denied: outside the inbox");
    const deleted = await this.container.getBlockBlobClient(this.blobName(p.name)).deleteIfExists();
    this.status(reqId, deleted.succeeded ? STATUS_CODE.OK : STATUS_CODE.NO_SUCH_FILE);
  }
}

export class SftpServer {
  private server: Server | undefined;
  private readonly connections = new Set<Connection>();
  private readonly container: ContainerClient;

  constructor(private readonly options: SftpServerOptions) {
    this.container = BlobServiceClient.fromConnectionString(options.storageConnectionString).getContainerClient(CONTAINER);
  }

  /** Listens on `host:port` (0: a free port) and answers the port. */
  start(port: number, host: string): Promise<number> {
    const server = new Server({ hostKeys: [loadHostKey(this.options.hostKeyPath)] }, (client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        server.on("error", (error: Error) => this.options.log(`sftp: ${error.message}`));
        const address = server.address();
        resolve(typeof address === "object" && address !== null ? address.port : port);
      });
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    for (const c of this.connections) c.end();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Connection): void {
    this.connections.add(client);
    client.on("close", () => this.connections.delete(client));
    client.on("error", () => undefined); // a dropped connection: its uploads were never committed
    let feed: StoredFeed | undefined;
    client.on("authentication", (ctx) => {
      void this.authenticate(ctx).then(
        (found) => {
          if (found === undefined) return ctx.reject(["password", "publickey"]);
          feed = found;
          ctx.accept();
        },
        () => ctx.reject(["password", "publickey"]),
      );
    });
    client.on("ready", () => {
      client.on("session", (acceptSession) => {
        const session = acceptSession();
        session.on("sftp", (acceptSftp) => {
          if (feed === undefined) return;
          new InboxSession(acceptSftp(), feed, this.container, this.options.log, this.options.committed);
        });
      });
    });
  }

  /** The feed when these credentials log in as it; undefined for any failure, whichever the reason. */
  private async authenticate(ctx: AuthContext): Promise<StoredFeed | undefined> {
    if (ctx.method === "password") {
      const feed = await feedOfUsername(this.options.feeds(), ctx.username);
      // verifySecret does the same work with no feed, so an unknown login costs as much as a wrong password.
      const ok = await verifySecret(ctx.password, feed?.sftp.passwordHash);
      return ok ? feed : undefined;
    }
    if (ctx.method === "publickey") {
      const feed = await feedOfUsername(this.options.feeds(), ctx.username);
      return feed !== undefined && publicKeyMatches(ctx, feed.sftp.publicKeys) ? feed : undefined;
    }
    return undefined;
  }
}
