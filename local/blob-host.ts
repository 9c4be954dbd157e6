import { ResourceFactoryResolver } from "@azure/functions-extensions-base";
import type { Logger } from "../shared/logging";
import { BlobServiceClient, RestError, type BlockBlobClient, type ContainerClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { invoke, type LoadedFunction } from "./functions-host";
import { BLOB_SOURCE, checkBlobTrigger, compileBlobPath, modelBindingData } from "./blob-trigger";

export interface BlobHostOptions {
  pollMs: number;
  /** Runs one blob version gets (each counted as it starts); when they are spent without success, a message goes to `webjobs-blobtrigger-poison`. */
  maxAttempts: number;
}

const defaults: BlobHostOptions = { pollMs: 2000, maxAttempts: 5 };
const RECEIPTS = "azure-webjobs-hosts";
const POISON = "webjobs-blobtrigger-poison";

/**
 * Runs blob-triggered functions: scans the watched containers, runs each new or changed blob once per
 * version, and keeps receipts in `azure-webjobs-hosts` so a restart does not run a blob again. A scan
 * runs every `pollMs`, and at once when `notify` says a blob was written (the local SFTP server does on
 * each upload), as Azure's Event Grid trigger would. Each run is counted before the function starts,
 * as Azure counts a delivery (the dequeue count of the host's blob-trigger queue message): a blob
 * whose run takes the whole process down (out of memory, kill -9) is tried `maxAttempts` times in all,
 * then reported on `webjobs-blobtrigger-poison` and left alone. The function is handed the binding
 * data Azure sends for `sdkBinding` (a reference), resolved through the registered resource factory:
 * the host never reads the blob.
 */
export class BlobHost {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly options: BlobHostOptions;
  private readonly blobs: BlobServiceClient;
  private readonly queues: QueueServiceClient;
  /** Per watched container: wakes its loops for a scan now. */
  private readonly wakers = new Map<string, Set<() => void>>();
  /** Containers notified while a scan of theirs ran: scanned again at once. */
  private readonly notified = new Set<string>();

  constructor(
    private readonly functions: LoadedFunction[],
    connectionString: string,
    private readonly log: Logger,
    options: Partial<BlobHostOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    this.blobs = BlobServiceClient.fromConnectionString(connectionString);
    this.queues = QueueServiceClient.fromConnectionString(connectionString);
  }

  async start(): Promise<void> {
    const triggered = this.functions.filter((f) => f.trigger.type === "blobTrigger");
    for (const fn of triggered) checkBlobTrigger(fn);
    this.running = true;
    await this.blobs.getContainerClient(RECEIPTS).createIfNotExists();
    await this.queues.getQueueClient(POISON).createIfNotExists();
    for (const fn of triggered) {
      const path = compileBlobPath(String(fn.trigger.path));
      const container = this.blobs.getContainerClient(path.container);
      await container.createIfNotExists();
      this.loops.push(this.poll(fn, container, path.match));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const wakes of this.wakers.values()) for (const wake of wakes) wake();
    await Promise.all(this.loops);
  }

  /** A blob of `container` was written: its functions scan it now instead of at the next poll. */
  notify(container: string): void {
    this.notified.add(container);
    for (const wake of this.wakers.get(container) ?? []) wake();
  }

  /** One scan of a watched container; the loop repeats it every `pollMs`. */
  private async scan(
    fn: LoadedFunction,
    container: ContainerClient,
    match: (name: string) => Record<string, string> | undefined,
  ): Promise<void> {
    for await (const blob of container.listBlobsFlat()) {
      if (!this.running) return;
      const parts = match(blob.name);
      if (parts === undefined) continue;
      const etag = blob.properties.etag ?? "";
      const receipt = this.blobs
        .getContainerClient(RECEIPTS)
        .getBlockBlobClient(`blobreceipts/local/${fn.name}/${container.containerName}/${blob.name}`);
      let attempts = 0;
      try {
        const properties = await receipt.getProperties();
        if (
          properties.metadata?.etag === etag &&
          (properties.metadata.status === "done" || properties.metadata.status === "poison")
        )
          continue;
        if (properties.metadata?.etag === etag) attempts = Number(properties.metadata.attempts ?? "0");
      } catch (error) {
        if (!(error instanceof RestError && error.statusCode === 404)) throw error;
      }
      if (attempts >= this.options.maxAttempts) {
        // Every attempt was counted and none finished: the last ones died with the process.
        await this.poison(
          fn,
          container.containerName,
          blob.name,
          etag,
          receipt,
          attempts,
          "the runs of this blob never finished",
        );
        continue;
      }
      attempts++;
      await receipt.upload("", 0, { metadata: { etag, status: "running", attempts: String(attempts) } });
      const client = container.getBlobClient(blob.name);
      const triggerMetadata = {
        ...parts,
        blobTrigger: `${container.containerName}/${blob.name}`,
        uri: client.url,
        properties: { etag, length: blob.properties.contentLength },
      };
      try {
        const argument = ResourceFactoryResolver.getInstance().createClient(
          BLOB_SOURCE,
          modelBindingData(fn.trigger["connection"], container.containerName, blob.name),
        );
        // A new trace per run, as in Azure: the file's import, its events and valuations continue it.
        await invoke(fn, [argument], { log: this.log, triggerMetadata, ownSpan: true });
      } catch (error) {
        this.log.error("blob function failed", { function: fn.name, blob: blob.name, attempts, error: String(error) });
        if (attempts >= this.options.maxAttempts)
          await this.poison(fn, container.containerName, blob.name, etag, receipt, attempts, String(error));
        else await receipt.upload("", 0, { metadata: { etag, status: "failed", attempts: String(attempts) } });
        continue;
      }
      await receipt.upload("", 0, { metadata: { etag, status: "done", attempts: String(attempts) } });
    }
  }

  /** Gives up on a blob version: a message on the poison queue, as Azure sends, and a receipt that keeps it from running again. */
  private async poison(
    fn: LoadedFunction,
    containerName: string,
    blobName: string,
    etag: string,
    receipt: BlockBlobClient,
    attempts: number,
    reason: string,
  ): Promise<void> {
    this.log.error("blob function gave up: poison", { function: fn.name, blob: blobName, attempts, reason });
    await this.queues.getQueueClient(POISON).sendMessage(
      Buffer.from(
        JSON.stringify({
          FunctionId: fn.name,
          BlobType: "BlockBlob",
          ContainerName: containerName,
          BlobName: blobName,
          ETag: etag,
        }),
      ).toString("base64"),
    );
    await receipt.upload("", 0, { metadata: { etag, status: "poison", attempts: String(attempts) } });
  }

  private async poll(
    fn: LoadedFunction,
    container: ContainerClient,
    match: (name: string) => Record<string, string> | undefined,
  ): Promise<void> {
    const name = container.containerName;
    while (this.running) {
      this.notified.delete(name);
      try {
        await this.scan(fn, container, match);
      } catch (error) {
        if (this.running) this.log.warn("blob scan failed", { container: name, error: String(error) });
      }
      if (!this.running || this.notified.has(name)) continue;
      await new Promise<void>((resolve) => {
        const wakes = this.wakers.get(name) ?? new Set<() => void>();
        this.wakers.set(name, wakes);
        const wake = (): void => {
          clearTimeout(timer);
          wakes.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, this.options.pollMs);
        wakes.add(wake);
      });
    }
  }
}
