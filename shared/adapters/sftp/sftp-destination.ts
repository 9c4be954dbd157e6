import { createHash } from "node:crypto";
import { posix } from "node:path";
import { Transform, type Readable } from "node:stream";
import SftpClient from "ssh2-sftp-client";
import type { ExportDestination } from "../../app/export/contract";
import { normalizeFingerprint } from "../../domain/export-destination";

export interface SftpDestinationOptions {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  /** When set, a server presenting any other host key is refused before logging in. */
  hostKeyFingerprint?: string;
  /** The directory the file goes to; created if missing. */
  path: string;
  /** Seconds to reach the server and finish the SSH handshake. */
  connectTimeoutSeconds: number;
  /** Seconds the whole upload may take, connection included. */
  timeoutSeconds: number;
}

/** Why an SFTP upload failed, in words a customer can act on; never a secret. */
export class SftpDestinationError extends Error {
  override readonly name = "SftpDestinationError";
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"]);

/** Counts the bytes passing through. */
function byteCounter(): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.bytes += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}

/**
 * Uploads export files to a customer's SFTP server with `ssh2-sftp-client`: password or private-key
 * login, the host key pinned when a fingerprint is configured, the directory created if missing. The
 * file is written as `.<name>.part` and renamed over `<name>` once complete, so a receiver never picks
 * up half a file and a retried run replaces the file instead of adding one.
 */
export class SftpDestination implements ExportDestination {
  constructor(private readonly options: SftpDestinationOptions) {}

  async upload(fileName: string, body: Readable): Promise<{ bytes: number }> {
    const o = this.options;
    const where = `${o.host}:${o.port}`;
    const client = new SftpClient("export");
    let hostKeyRefused = false;
    let timedOut = false;
    const pinned = o.hostKeyFingerprint === undefined ? undefined : normalizeFingerprint(o.hostKeyFingerprint);
    const deadline = setTimeout(() => {
      timedOut = true;
      body.destroy(new SftpDestinationError(`the upload to ${where} did not finish within ${o.timeoutSeconds} s`));
      void client.end().catch(() => undefined);
    }, o.timeoutSeconds * 1000);
    const directory = o.path.replace(/\/+$/, "") || "/";
    const finalPath = posix.join(directory, fileName);
    const partPath = posix.join(directory, `.${fileName}.part`);
    try {
      try {
        await client.connect({
          host: o.host,
          port: o.port,
          username: o.username,
          ...(o.password !== undefined ? { password: o.password } : {}),
          ...(o.privateKey !== undefined ? { privateKey: o.privateKey } : {}),
          readyTimeout: o.connectTimeoutSeconds * 1000,
          ...(pinned !== undefined
            ? {
                hostVerifier: (key: Buffer): boolean => {
                  const seen = createHash("sha256").update(key).digest("base64").replace(/=+$/, "");
                  hostKeyRefused = seen !== pinned;
                  return !hostKeyRefused;
                },
              }
            : {}),
        });
      } catch (error) {
        throw this.connectError(error, hostKeyRefused, timedOut);
      }
      try {
        await this.ensureDirectory(client, directory, where);
        const counter = byteCounter();
        const counted = body.pipe(counter);
        body.once("error", (error) => counter.destroy(error));
        await client.put(counted, partPath);
        await this.replace(client, partPath, finalPath);
        return { bytes: counter.bytes };
      } catch (error) {
        await client.delete(partPath, true).catch(() => undefined);
        if (error instanceof SftpDestinationError) throw error;
        if (timedOut) throw new SftpDestinationError(`the upload to ${where} did not finish within ${o.timeoutSeconds} s`);
        throw new SftpDestinationError(`writing ${finalPath} on ${where} failed: ${messageOf(error)}`);
      }
    } finally {
      clearTimeout(deadline);
      // A refused upload never read its body: stop the writer and the data set behind it.
      if (!body.readableEnded) body.destroy();
      await client.end().catch(() => undefined);
    }
  }

  /** Creates the directory if missing; another upload creating it at the same moment is no failure. */
  private async ensureDirectory(client: SftpClient, directory: string, where: string): Promise<void> {
    let kind = await client.exists(directory);
    if (kind === false) {
      try {
        await client.mkdir(directory, true);
        return;
      } catch (error) {
        kind = await client.exists(directory);
        if (kind === false) throw error;
      }
    }
    if (kind !== "d") throw new SftpDestinationError(`${directory} on ${where} exists and is not a directory`);
  }

  /** posix-rename replaces the target in one step where the server offers it; otherwise the old file goes first. */
  private async replace(client: SftpClient, from: string, to: string): Promise<void> {
    try {
      await client.posixRename(from, to);
      return;
    } catch {
      // Not offered by this server: plain SFTP rename refuses an existing target.
    }
    if ((await client.exists(to)) !== false) await client.delete(to);
    await client.rename(from, to);
  }

  private connectError(error: unknown, hostKeyRefused: boolean, timedOut: boolean): SftpDestinationError {
    const o = this.options;
    const where = `${o.host}:${o.port}`;
    if (hostKeyRefused) return new SftpDestinationError(`the host key of ${where} does not match hostKeyFingerprint; refused before logging in`);
    if (timedOut) return new SftpDestinationError(`the upload to ${where} did not finish within ${o.timeoutSeconds} s`);
    const message = messageOf(error);
    const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
    if (/authentication methods failed|auth/i.test(message)) {
      return new SftpDestinationError(`${where} refused the login of user '${o.username}': check the ${o.privateKey !== undefined ? "private key" : "password"}`);
    }
    const network = [...NETWORK_CODES].find((c) => code === c || message.includes(c));
    if (network !== undefined) return new SftpDestinationError(`cannot reach the SFTP server ${where} (${network})`);
    if (/timed out|timeout/i.test(message)) return new SftpDestinationError(`no SSH handshake with ${where} within ${o.connectTimeoutSeconds} s`);
    return new SftpDestinationError(`cannot connect to the SFTP server ${where}: ${message}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

