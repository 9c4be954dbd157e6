import type { Readable } from "node:stream";
import type { TokenCredential } from "@azure/core-auth";
import { ContainerClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { ExportDestination, UploadAttempt } from "../../ports/exports";
import { renderedNameProblem } from "../../domain/export-file-name";
import type { EmulatorAccount } from "../../domain/storage-connection-string";

const CONTENT_TYPES: Record<string, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** Block size and blocks in flight: at most 5 × 4 MiB of a file in memory, whatever its size. */
const BLOCK_BYTES = 4 * 1024 * 1024;
const PARALLEL_BLOCKS = 4;

/**
 * Uploads export files to a customer's blob container as `prefix` + file name: the body is staged as
 * blocks named for the attempt, and the block list is committed once, after the attempt confirms. The
 * blob appears whole or not at all; of two writers of one name, one commit wins whole (a commit
 * discards the blocks it does not list, so the other's commit fails rather than mixing); a retried run
 * overwrites it. In Azure the service signs in with its managed identity, to which the customer grants
 * Storage Blob Data Contributor on the container; a container of the local emulator is reached with
 * the emulator's account key. The caller has checked the URL (parseContainerUrl): only an Azure blob
 * endpoint or the emulator ever gets a request, and with it a token.
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

  async upload(fileName: string, body: Readable, attempt: UploadAttempt): Promise<{ bytes: number }> {
    const name = `${this.prefix}${fileName}`;
    const unsafe = renderedNameProblem(fileName);
    if (unsafe !== undefined) {
      body.destroy();
      throw new Error(`the file name "${fileName}" ${unsafe}; nothing was written`);
    }
    const blob = this.container.getBlockBlobClient(name);
    const extension = fileName.slice(fileName.lastIndexOf(".") + 1).toLowerCase();
    const blockIds: string[] = [];
    const inFlight = new Set<Promise<void>>();
    // Kept in a box: the storage service's answer, whatever it is, is what the catch below reports.
    let failure: { reason: unknown } | undefined;
    let bytes = 0;
    // Block ids are of one length within a blob, and this attempt's own: another writer's blocks are never in its list.
    const stage = (block: Buffer): void => {
      const id = Buffer.from(`${attempt.id}:${String(blockIds.length).padStart(6, "0")}`).toString("base64");
      blockIds.push(id);
      const staged: Promise<void> = blob
        .stageBlock(id, block, block.length)
        .then(
          () => undefined,
          (reason: unknown) => void (failure ??= { reason }),
        )
        .finally(() => inFlight.delete(staged));
      inFlight.add(staged);
    };
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= BLOCK_BYTES) {
          stage(Buffer.concat(pending, pendingBytes));
          pending = [];
          pendingBytes = 0;
          while (inFlight.size >= PARALLEL_BLOCKS) await Promise.race(inFlight);
        }
        if (failure !== undefined) throw failure.reason;
      }
      if (pendingBytes > 0) stage(Buffer.concat(pending, pendingBytes));
      await Promise.all(inFlight);
      if (failure !== undefined) throw failure.reason;
    } catch (error) {
      if (!body.readableEnded) body.destroy();
      await Promise.allSettled(inFlight);
      throw new Error(`writing ${name} to ${this.container.url} failed: ${blobMessage(error)}`);
    }
    await attempt.confirm();
    try {
      await blob.commitBlockList(blockIds, {
        blobHTTPHeaders: { blobContentType: CONTENT_TYPES[extension] ?? "application/octet-stream" },
      });
    } catch (error) {
      throw new Error(`writing ${name} to ${this.container.url} failed: ${blobMessage(error)}`);
    }
    return { bytes };
  }
}

/** The storage service's own words (its error code and status), without the request's headers. */
function blobMessage(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const e = error as { statusCode?: number; code?: string; message?: string };
    if (e.statusCode === 403)
      return "403 access denied: grant the service's managed identity Storage Blob Data Contributor on the container";
    if (e.statusCode === 404) return "404: the container does not exist";
    if (e.statusCode === 400 && e.code === "InvalidBlockList")
      return "400 InvalidBlockList: another upload of the same blob committed first";
    if (e.statusCode !== undefined) return `${e.statusCode} ${e.code ?? ""}`.trim();
    if (e.code !== undefined) return e.code;
  }
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}
