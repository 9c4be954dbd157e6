import { RestError, type ContainerClient } from "@azure/storage-blob";
import { utils, type Attributes, type FileEntry } from "ssh2";
import { compileFilePattern, type StoredFeed } from "../../shared/domain/feed";
import type { Logger } from "../../shared/logging";
import { dirAttrs, fileAttrs, longname } from "./attributes";
import type { SftpBackend, SftpDirectory, SftpFile, SftpName } from "./backend";
import { InboxUpload } from "./inbox-upload";
import { contentTypeOf, inboxPath, refusal, type InboxPath } from "./paths";
import { SftpRefusal, STATUS } from "./refusal";
import type { UploadSlots } from "./upload-slots";

const { OPEN_MODE } = utils.sftp;
export const INBOUND = "inbound";

export interface InboxBackendOptions {
  /** The `inbound` container. */
  container: ContainerClient;
  slots: UploadSlots;
  log: Logger;
  /** Told of each upload once it is committed (visible in `inbound`). */
  committed: (container: string, blobName: string) => void;
}

const isNotFound = (error: unknown): boolean => error instanceof RestError && error.statusCode === 404;
const denied = (): SftpRefusal =>
  new SftpRefusal(STATUS.PERMISSION_DENIED, "permission denied: this inbox takes file uploads and removals only");

/**
 * A feed's inbox as its SFTP login sees it: the blobs `inbound/<feedId>/<name>` as the files of `/`.
 * Uploads (whole, in order, names matching the feed's pattern), listings and removals; nothing else.
 * Its storage requests name themselves as the SFTP endpoint's (sftp-server.ts), so the storage
 * events they raise are SftpCreate, SftpCommit and SftpRemove, as in Azure.
 */
export class InboxBackend implements SftpBackend {
  private readonly matches: (name: string) => boolean;

  constructor(
    private readonly feed: StoredFeed,
    private readonly options: InboxBackendOptions,
  ) {
    this.matches = compileFilePattern(feed.filePattern);
  }

  private get login(): string {
    return this.feed.sftp.username;
  }

  async realpath(path: string): Promise<SftpName> {
    const p = where(path);
    return p.kind === "root"
      ? { path: "/", attrs: dirAttrs() }
      : { path: `/${p.name}`, attrs: fileAttrs(0, undefined) };
  }

  async stat(path: string): Promise<Attributes> {
    const p = where(path);
    if (p.kind === "root") return dirAttrs();
    try {
      const props = await this.blob(p.name).getProperties();
      return fileAttrs(props.contentLength ?? 0, props.lastModified);
    } catch (error) {
      if (isNotFound(error)) throw new SftpRefusal(STATUS.NO_SUCH_FILE, "no such file");
      throw error;
    }
  }

  async setstat(path: string): Promise<void> {
    if (inboxPath(path) === undefined) throw new SftpRefusal(STATUS.PERMISSION_DENIED);
  }

  async openDirectory(path: string): Promise<SftpDirectory> {
    if (where(path).kind !== "root") throw new SftpRefusal(STATUS.NO_SUCH_FILE, "not a directory");
    return { stat: async () => dirAttrs(), list: () => this.list() };
  }

  async openForRead(path: string): Promise<SftpFile> {
    fileIn(path);
    throw new SftpRefusal(STATUS.PERMISSION_DENIED, "permission denied: files can only be uploaded whole");
  }

  async openForWrite(path: string, flags: number): Promise<SftpFile> {
    const name = fileIn(path);
    if ((flags & OPEN_MODE.READ) !== 0 || (flags & OPEN_MODE.APPEND) !== 0) {
      throw new SftpRefusal(STATUS.PERMISSION_DENIED, "permission denied: files can only be uploaded whole");
    }
    if (!this.matches(name))
      throw new SftpRefusal(
        STATUS.PERMISSION_DENIED,
        "permission denied: the file name does not match the feed's file pattern",
      );
    const blob = this.blob(name);
    const exclusive = (flags & OPEN_MODE.EXCL) !== 0;
    if (exclusive && (await blob.exists())) throw new SftpRefusal(STATUS.FAILURE, "the file exists");
    const full = this.options.slots.take(this.login);
    if (full !== undefined) {
      this.options.log.warn("sftp upload refused: too many open uploads", {
        feedId: this.feed.id,
        username: this.login,
      });
      throw new SftpRefusal(STATUS.FAILURE, full);
    }
    // As Azure's SFTP endpoint does (its SftpCreate event): the file exists, empty, from the open on.
    // Its content arrives whole at the close (SftpCommit), the one event the file-drop trigger takes.
    let created: string;
    try {
      created =
        (
          await blob.upload("", 0, {
            blobHTTPHeaders: { blobContentType: contentTypeOf(name) },
            metadata: { feedId: this.feed.id, source: "sftp" },
            ...(exclusive ? { conditions: { ifNoneMatch: "*" } } : {}),
          })
        ).etag ?? "";
    } catch (error) {
      this.options.slots.release(this.login);
      if (exclusive && error instanceof RestError && (error.statusCode === 409 || error.statusCode === 412))
        throw new SftpRefusal(STATUS.FAILURE, "the file exists");
      throw error;
    }
    return new InboxUpload(name, blob, {
      feedId: this.feed.id,
      log: this.options.log,
      created,
      release: () => this.options.slots.release(this.login),
      committed: (blobName) => this.options.committed(INBOUND, blobName),
    });
  }

  async remove(path: string): Promise<void> {
    const deleted = await this.blob(fileIn(path)).deleteIfExists();
    if (!deleted.succeeded) throw new SftpRefusal(STATUS.NO_SUCH_FILE);
  }

  async rename(): Promise<void> {
    throw denied();
  }

  async mkdir(): Promise<void> {
    throw denied();
  }

  async rmdir(): Promise<void> {
    throw denied();
  }

  async symlink(): Promise<void> {
    throw denied();
  }

  async readlink(): Promise<SftpName> {
    throw denied();
  }

  failed(error: unknown): void {
    this.options.log.warn("sftp session failed", {
      feedId: this.feed.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  private blob(name: string) {
    return this.options.container.getBlockBlobClient(`${this.feed.id}/${name}`);
  }

  /** The inbox's files, as a listing shows them. */
  private async list(): Promise<FileEntry[]> {
    const entries: FileEntry[] = [];
    const prefix = `${this.feed.id}/`;
    for await (const blob of this.options.container.listBlobsFlat({ prefix })) {
      const name = blob.name.slice(prefix.length);
      if (name === "" || name.includes("/")) continue;
      const size = blob.properties.contentLength ?? 0;
      const modified = blob.properties.lastModified;
      entries.push({ filename: name, longname: longname(name, size, modified), attrs: fileAttrs(size, modified) });
    }
    return entries;
  }
}

/** `path` in the inbox, or refused. */
function where(path: string): InboxPath {
  const p = inboxPath(path);
  if (p === undefined) throw new SftpRefusal(STATUS.PERMISSION_DENIED, refusal(path));
  return p;
}

/** The name of the file `path` names in the inbox, or refused (the inbox itself included). */
function fileIn(path: string): string {
  const p = inboxPath(path);
  if (p?.kind !== "file") throw new SftpRefusal(STATUS.PERMISSION_DENIED, refusal(path));
  return p.name;
}
