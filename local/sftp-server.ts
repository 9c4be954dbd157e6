/**
 * The local runtime's SFTP drop: what the storage account's SFTP endpoint is in Azure. One login per
 * feed (its `sftp.username`, the password checked against the stored hash or one of its OpenSSH
 * public keys); each login sees only its inbox, the blobs `inbound/<feedId>/<name>`, as `/`. As on
 * Azure's endpoint, opening a file for upload creates it empty (the storage event SftpCreate), the
 * upload streams into the blob block by block, and its content appears whole when the upload closes
 * (SftpCommit, the event the file-drop trigger's subscription passes). Served by the SFTP
 * subsystem and server scaffold the tests' SFTP target shares (local/sftp/subsystem.ts, host.ts), with
 * the inbox as its backend (local/sftp/inbox-backend.ts).
 */
import { generateKeyPairSync } from "node:crypto";
import type { Logger } from "../shared/logging";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import type { StoredFeed } from "../shared/domain/feed";
import { verifySecret } from "../shared/domain/secret-hash";
import type { FeedRepository } from "../shared/ports/feed-repository";
import { SftpHost, type Admission, type LoginAttempt } from "./sftp/host";
import { INBOUND, InboxBackend } from "./sftp/inbox-backend";
import { LoginGuard } from "./sftp/login-guard";
import { publicKeyMatches } from "./sftp/public-key";
import { UploadSlots } from "./sftp/upload-slots";
import { SFTP_ENDPOINT_USER_AGENT } from "./event-grid/blob-request";

/** What the SFTP drop allows: open uploads, login attempts and their backoff (SFTP_* settings). */
export interface SftpLimits {
  uploadsPerLogin: number;
  uploads: number;
  /** Failed password or key attempts one connection may make before it is closed. */
  authTries: number;
  authBackoffSeconds: number;
  authBackoffMaxSeconds: number;
}

export const defaultSftpLimits: SftpLimits = {
  uploadsPerLogin: 4,
  uploads: 16,
  authTries: 6,
  authBackoffSeconds: 1,
  authBackoffMaxSeconds: 10,
};

export interface SftpServerOptions {
  hostKeyPath: string;
  feeds: () => FeedRepository;
  storageConnectionString: string;
  log: Logger;
  limits?: SftpLimits;
  /** Told of each upload once it is committed (visible in `inbound`): the local blob trigger picks it up at once. */
  committed?: (container: string, blobName: string) => void;
}

/** The host key kept under the data folder, created on first start (RSA, PKCS#1 PEM, which ssh2 reads). */
export function loadHostKey(path: string): Buffer {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class SftpServer {
  private host: SftpHost<StoredFeed> | undefined;
  private readonly container: ContainerClient;
  private readonly limits: SftpLimits;
  private readonly slots: UploadSlots;
  private readonly guard: LoginGuard;

  constructor(private readonly options: SftpServerOptions) {
    // Its storage requests say they are the SFTP endpoint's: the storage events they raise are Sftp*.
    this.container = BlobServiceClient.fromConnectionString(options.storageConnectionString, {
      userAgentOptions: { userAgentPrefix: SFTP_ENDPOINT_USER_AGENT },
    }).getContainerClient(INBOUND);
    this.limits = options.limits ?? defaultSftpLimits;
    this.slots = new UploadSlots({ perLogin: this.limits.uploadsPerLogin, total: this.limits.uploads });
    this.guard = new LoginGuard({
      backoffSeconds: this.limits.authBackoffSeconds,
      maxBackoffSeconds: this.limits.authBackoffMaxSeconds,
    });
  }

  /** Listens on `host:port` (0: a free port) and answers the port. */
  start(port: number, host: string): Promise<number> {
    const { log, committed } = this.options;
    this.host = new SftpHost<StoredFeed>({
      hostKey: loadHostKey(this.options.hostKeyPath),
      authenticate: (attempt, client) => this.authenticate(attempt, client.ip),
      backend: (feed) =>
        new InboxBackend(feed, {
          container: this.container,
          slots: this.slots,
          log,
          committed: committed ?? (() => undefined),
        }),
      maxAuthFailures: this.limits.authTries,
      log,
    });
    return this.host.listen(port, host);
  }

  async stop(): Promise<void> {
    const host = this.host;
    if (host === undefined) return;
    this.host = undefined;
    await host.stop();
  }

  /**
   * The feed when these credentials log in as it; none for any failure, whichever the reason. A
   * password is checked only after its address's backoff (throttled: refused unchecked, the wait
   * would be too long).
   */
  private async authenticate(ctx: LoginAttempt, address: string): Promise<Admission<StoredFeed>> {
    if (ctx.method === "password") {
      const wait = this.guard.admit(address);
      if (wait === undefined) {
        this.guard.failed(address);
        return { login: undefined, throttled: true };
      }
      if (wait > 0) await sleep(wait);
      const feed = await feedOfUsername(this.options.feeds(), ctx.username);
      // verifySecret does the same work with no feed, so an unknown login costs as much as a wrong password.
      const ok = await verifySecret(ctx.password, feed?.sftp.passwordHash);
      if (ok && feed !== undefined) return { login: feed };
      this.guard.failed(address);
      return { login: undefined };
    }
    const feed = await feedOfUsername(this.options.feeds(), ctx.username);
    return { login: feed !== undefined && publicKeyMatches(ctx, feed.sftp.publicKeys) ? feed : undefined };
  }
}
