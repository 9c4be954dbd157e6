import { Transform, type Readable } from "node:stream";
import type { TokenCredential } from "@azure/core-auth";
import { ContainerClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { ExportDestination } from "../../app/export/contract";

const CONTENT_TYPES: Record<string, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** The local emulator's account, from a connection string (`AccountName`, `AccountKey`, `BlobEndpoint`). */
export interface EmulatorAccount {
  blobEndpoint: string;
  accountName: string;
  accountKey: string;
}

/** The account of a connection string that names a blob endpoint and a key (Azurite's); undefined otherwise. */
export function emulatorAccount(connectionString: string | undefined): EmulatorAccount | undefined {
  if (connectionString === undefined) return undefined;
  const parts = new Map<string, string>();
  for (const part of connectionString.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) parts.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const blobEndpoint = parts.get("BlobEndpoint");
  const accountName = parts.get("AccountName");
  const accountKey = parts.get("AccountKey");
  if (blobEndpoint === undefined || accountName === undefined || accountKey === undefined) return undefined;
  return { blobEndpoint: blobEndpoint.replace(/\/+$/, ""), accountName, accountKey };
}

/**
 * Uploads export files to a customer's blob container as `prefix` + file name, streamed as staged
 * blocks committed at the end (`uploadStream`): the blob appears whole or not at all, and a retried run
 * overwrites it. In Azure the service signs in with its managed identity, to which the customer grants
 * Storage Blob Data Contributor on the container; a container of the local emulator is reached with the
 * emulator's account key.
 */
export class BlobDestination implements ExportDestination {
  private readonly container: ContainerClient;

  constructor(
    containerUrl: string,
    private readonly prefix: string,
    credential: TokenCredential,
    emulator: EmulatorAccount | undefined,
  ) {
    const url = containerUrl.replace(/\/+$/, "");
    this.container =
      emulator !== undefined && url.startsWith(`${emulator.blobEndpoint}/`)
        ? new ContainerClient(url, new StorageSharedKeyCredential(emulator.accountName, emulator.accountKey))
        : new ContainerClient(url, credential);
  }

  async upload(fileName: string, body: Readable): Promise<{ bytes: number }> {
    const name = `${this.prefix}${fileName}`;
    let bytes = 0;
    const counted = body.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      }),
    );
    body.once("error", (error) => counted.destroy(error));
    const extension = fileName.slice(fileName.lastIndexOf(".") + 1).toLowerCase();
    try {
      await this.container.getBlockBlobClient(name).uploadStream(counted, 4 * 1024 * 1024, 4, {
        blobHTTPHeaders: { blobContentType: CONTENT_TYPES[extension] ?? "application/octet-stream" },
      });
    } catch (error) {
      if (!body.readableEnded) body.destroy();
      throw new Error(`writing ${name} to ${this.container.url} failed: ${blobMessage(error)}`);
    }
    return { bytes };
  }
}

/** The storage service's own words (its error code and status), without the request's headers. */
function blobMessage(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const e = error as { statusCode?: number; code?: string; message?: string };
    if (e.statusCode === 403) return "403 access denied: grant the service's managed identity Storage Blob Data Contributor on the container";
    if (e.statusCode === 404) return "404: the container does not exist";
    if (e.statusCode !== undefined) return `${e.statusCode} ${e.code ?? ""}`.trim();
    if (e.code !== undefined) return e.code;
  }
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}
