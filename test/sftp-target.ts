/**
 * A customer's SFTP server for tests and the export benchmark: an `ssh2` Server whose logins see a
 * directory on local disk as `/`. Password and public-key logins for the configured users; what
 * `ssh2-sftp-client` needs to create directories, upload through write streams, rename (overwriting
 * the target, as posix rename does), stat, list, read back and delete. Paths never leave the root.
 * A new host key is generated at each start; its fingerprint is exposed for host-key pinning tests.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { utils, type ParsedKey } from "ssh2";
import { SftpHost, type LoginAttempt } from "../local/sftp/host";
import { publicKeyMatches } from "../local/sftp/public-key";
import { DiskBackend, type SftpOperation } from "./sftp-disk-backend";
import { ed25519KeyPair } from "../shared/adapters/sftp/ssh-key-pair";

export type { SftpOperation } from "./sftp-disk-backend";

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

/** Starts a target on a free port of 127.0.0.1 (or `options.host`). */
export async function startSftpTarget(options: SftpTargetOptions): Promise<SftpTarget> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), "sftp-target-")));
  await mkdir(root, { recursive: true });
  const generated = ed25519KeyPair();
  const parsed = utils.parseKey(generated.public);
  if (parsed instanceof Error) throw parsed;
  const hostKey: ParsedKey | undefined = Array.isArray(parsed) ? (parsed as ParsedKey[])[0] : parsed;
  if (hostKey === undefined) throw new Error("no host key");
  const digest = createHash("sha256").update(hostKey.getPublicSSH()).digest("base64");
  const operations: SftpOperation[] = [];
  const logins: string[] = [];
  const users = new Map(options.users.map((u) => [u.username, u]));

  const accepts = (ctx: LoginAttempt): boolean => {
    const user = users.get(ctx.username);
    if (ctx.method === "password") return sameSecret(ctx.password, user?.password);
    return user !== undefined && publicKeyMatches(ctx, user.publicKeys ?? []);
  };
  const host = new SftpHost<string>({
    hostKey: generated.private,
    authenticate: async (ctx) => {
      if (!accepts(ctx)) return { login: undefined };
      // A public-key probe (no signature yet) is accepted without counting as a login.
      if (ctx.method !== "publickey" || ctx.signature !== undefined) logins.push(ctx.username);
      return { login: ctx.username };
    },
    backend: (username) =>
      new DiskBackend({ root, username, record: (op) => operations.push(op), writeDelayMs: options.writeDelayMs }),
  });
  const port = await host.listen(0, options.host ?? "127.0.0.1");

  return {
    port,
    root,
    hostKeyFingerprint: digest,
    hostKeyOpenSshFingerprint: `SHA256:${digest.replace(/=+$/, "")}`,
    hostPublicKey: generated.public.trim(),
    operations,
    logins,
    get connections() {
      return host.connectionsAccepted;
    },
    close: () => host.stop(),
  };
}

/** The same as `startSftpTarget`, as an object: `new SftpTargetServer({ users }).start()`. */
export class SftpTargetServer {
  constructor(private readonly options: SftpTargetOptions) {}

  start(): Promise<SftpTarget> {
    return startSftpTarget(this.options);
  }
}
