import { posix } from "node:path";
import { Transform, type Readable } from "node:stream";
import SftpClient from "ssh2-sftp-client";
import type { ExportDestination, UploadAttempt } from "../../ports/exports";
import { renderedNameProblem } from "../../domain/export-file-name";
import { openSftp, SftpDestinationError, type HostAddresses, type SftpLogin } from "./sftp-connection";

export { SftpDestinationError } from "./sftp-connection";

export interface SftpDestinationOptions extends SftpLogin {
  /** The directory the file goes to; created if missing. */
  path: string;
  /** Seconds the whole upload may take, connection included. */
  timeoutSeconds: number;
}

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

/** The temporary names uploads of `fileName` use: `.<fileName>.<attempt id>.part`, and `.<fileName>.part` of earlier versions. */
function isPartOf(entry: string, fileName: string): boolean {
  if (entry === `.${fileName}.part`) return true;
  if (!entry.startsWith(`.${fileName}.`) || !entry.endsWith(".part")) return false;
  return /^[A-Za-z0-9-]+$/.test(entry.slice(fileName.length + 2, -".part".length));
}

/**
 * Uploads export files to a customer's SFTP server with `ssh2-sftp-client`, connected through the SSRF
 * guard (sftp-connection.ts): password or private-key login, the host key pinned when a fingerprint is
 * configured, the directory created if missing. The file is written as `.<name>.<attempt>.part` (a name
 * no other attempt uses) and renamed over `<name>` once complete and confirmed, so a receiver never
 * picks up half a file, two attempts never write one file, and a retried run replaces the file
 * instead of adding one. Temporary files that dead attempts left are removed after a delivery.
 */
export class SftpDestination implements ExportDestination {
  constructor(
    private readonly options: SftpDestinationOptions,
    private readonly hosts: HostAddresses,
  ) {}

  async upload(fileName: string, body: Readable, attempt: UploadAttempt): Promise<{ bytes: number }> {
    const o = this.options;
    const where = `${o.host}:${o.port}`;
    const unsafe = renderedNameProblem(fileName);
    if (unsafe !== undefined) {
      body.destroy();
      throw new SftpDestinationError(`the file name "${fileName}" ${unsafe}; nothing was written`);
    }
    // Every failure reaches this upload through a promise; the client's default listeners would only print to the console.
    const client = new SftpClient("export", { error: () => undefined, end: () => undefined, close: () => undefined });
    let timedOut = false;
    const late = (): SftpDestinationError =>
      new SftpDestinationError(`the upload to ${where} did not finish within ${o.timeoutSeconds} s`);
    const deadline = setTimeout(() => {
      timedOut = true;
      body.destroy(late());
      void client.end().catch(() => undefined);
    }, o.timeoutSeconds * 1000);
    const directory = o.path.replace(/\/+$/, "") || "/";
    const finalPath = posix.join(directory, fileName);
    const partPath = posix.join(directory, `.${fileName}.${attempt.id}.part`);
    /** Runs one SFTP step; its failure becomes a message naming the step (the server's own words, never a secret). */
    const step = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        if (error instanceof SftpDestinationError) throw error;
        if (timedOut) throw late();
        throw new SftpDestinationError(
          `${what} on ${where} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    };
    try {
      try {
        await openSftp(client, o, this.hosts);
      } catch (error) {
        throw timedOut ? late() : error;
      }
      const counter = byteCounter();
      try {
        await step(`creating ${directory}`, () => this.ensureDirectory(client, directory, where));
        const counted = body.pipe(counter);
        body.once("error", (error) => counter.destroy(error));
        await step(`writing ${partPath}`, () => client.put(counted, partPath));
        await attempt.confirm();
        await step(`renaming to ${finalPath}`, () => this.replace(client, partPath, finalPath, where));
      } catch (error) {
        await client.delete(partPath, true).catch(() => undefined);
        throw error;
      }
      await this.removeLeftovers(client, directory, fileName);
      return { bytes: counter.bytes };
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

  /** posix-rename replaces the target in one step where the server offers it; otherwise the old file goes first (never a directory). */
  private async replace(client: SftpClient, from: string, to: string, where: string): Promise<void> {
    try {
      await client.posixRename(from, to);
      return;
    } catch {
      // Not offered by this server: plain SFTP rename refuses an existing target.
    }
    const existing = await client.exists(to);
    if (existing === "d") throw new SftpDestinationError(`${to} on ${where} is a directory`);
    if (existing !== false) await client.delete(to);
    await client.rename(from, to);
  }

  /**
   * Deletes the temporary files of `fileName` that attempts which died left behind. Safe: the caller
   * holds the target, so no live attempt writes one of them. Best effort: a delivery never fails here.
   */
  private async removeLeftovers(client: SftpClient, directory: string, fileName: string): Promise<void> {
    try {
      const entries = await client.list(directory, (entry) => entry.type === "-" && isPartOf(entry.name, fileName));
      for (const entry of entries) await client.delete(posix.join(directory, entry.name), true).catch(() => undefined);
    } catch {
      // Listing refused (a write-only drop directory): the leftovers stay.
    }
  }
}
