/**
 * The local runtime's SFTP drop: what the storage account's SFTP endpoint is in Azure. One login per
 * feed (its `sftp.username`, the password checked against the stored hash or one of its OpenSSH
 * public keys); each login sees only its inbox, the blobs `inbound/<feedId>/<name>`, as `/`. Uploads
 * stream into the blob block by block and become visible when the upload closes (local/sftp/).
 */
import { generateKeyPairSync } from "node:crypto";
import type { Logger } from "../shared/logging";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { Server, type AuthContext, type AuthenticationType, type ClientInfo, type Connection } from "ssh2";
import type { StoredFeed } from "../shared/domain/feed";
import { verifySecret } from "../shared/domain/secret-hash";
import type { FeedRepository } from "../shared/ports/feed-repository";
import { INBOUND, InboxSession } from "./sftp/inbox-session";
import { LoginGuard } from "./sftp/login-guard";
import { publicKeyMatches } from "./sftp/public-key";
import { UploadSlots } from "./sftp/upload-slots";

/** What the SFTP drop allows: open uploads, login attempts and their backoff (SFTP_* settings). */
export interface SftpLimits {
  uploadsPerLogin: number;
  uploads: number;
  /** Failed password or key attempts one connection may make before it is closed. */
  authTries: number;
  authBackoffSeconds: number;
  authBackoffMaxSeconds: number;
}

export const defaultSftpLimits: SftpLimits = { uploadsPerLogin: 4, uploads: 16, authTries: 6, authBackoffSeconds: 1, authBackoffMaxSeconds: 30 };

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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const METHODS: AuthenticationType[] = ["password", "publickey"];

export class SftpServer {
  private server: Server | undefined;
  private readonly connections = new Set<Connection>();
  private readonly container: ContainerClient;
  private readonly limits: SftpLimits;
  private readonly slots: UploadSlots;
  private readonly guard: LoginGuard;

  constructor(private readonly options: SftpServerOptions) {
    this.container = BlobServiceClient.fromConnectionString(options.storageConnectionString).getContainerClient(INBOUND);
    this.limits = options.limits ?? defaultSftpLimits;
    this.slots = new UploadSlots({ perLogin: this.limits.uploadsPerLogin, total: this.limits.uploads });
    this.guard = new LoginGuard({ backoffSeconds: this.limits.authBackoffSeconds, maxBackoffSeconds: this.limits.authBackoffMaxSeconds });
  }

  /** Listens on `host:port` (0: a free port) and answers the port. */
  start(port: number, host: string): Promise<number> {
    const server = new Server({ hostKeys: [loadHostKey(this.options.hostKeyPath)] }, (client, info) => this.accept(client, info));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        server.on("error", (error: Error) => this.options.log.warn("sftp server error", { error: error.message }));
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

  private accept(client: Connection, info: ClientInfo): void {
    this.connections.add(client);
    client.on("close", () => this.connections.delete(client));
    client.on("error", () => undefined); // a dropped connection: its uploads were never committed
    let feed: StoredFeed | undefined;
    let failures = 0;
    client.on("authentication", (ctx) => {
      if (ctx.method !== "password" && ctx.method !== "publickey") return ctx.reject(METHODS);
      const decide = ({ feed: found, throttled }: { feed: StoredFeed | undefined; throttled: boolean }): void => {
        if (found !== undefined) {
          feed = found;
          return ctx.accept();
        }
        failures++;
        const who = { username: ctx.username.slice(0, 100), address: info.ip };
        this.options.log.warn("sftp login failed", { ...who, method: ctx.method, ...(throttled ? { throttled: true } : {}), connectionFailures: failures });
        ctx.reject(METHODS);
        if (failures >= this.limits.authTries) {
          this.options.log.warn("sftp connection closed: too many failed logins", { ...who, connectionFailures: failures });
          client.end();
        }
      };
      void this.authenticate(ctx, info.ip)
        .catch(() => ({ feed: undefined, throttled: false }))
        .then(decide)
        // The client may have gone while its attempt waited: nobody to answer.
        .catch(() => undefined);
    });
    client.on("ready", () => {
      client.on("session", (acceptSession) => {
        const session = acceptSession();
        session.on("sftp", (acceptSftp) => {
          if (feed === undefined) return;
          new InboxSession(acceptSftp(), feed, { container: this.container, slots: this.slots, log: this.options.log, committed: this.options.committed ?? (() => undefined) });
        });
      });
    });
  }

  /**
   * The feed when these credentials log in as it; undefined for any failure, whichever the reason. A
   * password is checked only after the backoff of its login name and address (throttled: refused
   * unchecked, the wait would be too long).
   */
  private async authenticate(ctx: AuthContext, address: string): Promise<{ feed: StoredFeed | undefined; throttled: boolean }> {
    if (ctx.method === "password") {
      const wait = this.guard.admit(ctx.username, address);
      if (wait === undefined) {
        this.guard.failed(ctx.username, address);
        return { feed: undefined, throttled: true };
      }
      if (wait > 0) await sleep(wait);
      const feed = await feedOfUsername(this.options.feeds(), ctx.username);
      // verifySecret does the same work with no feed, so an unknown login costs as much as a wrong password.
      const ok = await verifySecret(ctx.password, feed?.sftp.passwordHash);
      if (ok && feed !== undefined) {
        this.guard.succeeded(ctx.username);
        return { feed, throttled: false };
      }
      this.guard.failed(ctx.username, address);
      return { feed: undefined, throttled: false };
    }
    if (ctx.method === "publickey") {
      const feed = await feedOfUsername(this.options.feeds(), ctx.username);
      return { feed: feed !== undefined && publicKeyMatches(ctx, feed.sftp.publicKeys) ? feed : undefined, throttled: false };
    }
    return { feed: undefined, throttled: false };
  }
}
