import { BlobServiceClient, RestError, type ContainerClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { invocationContext, type LoadedFunction } from "./functions-host";

export interface BlobHostOptions {
  pollMs: number;
  /** After this many failed runs for one blob version, a message goes to `webjobs-blobtrigger-poison`. */
  maxAttempts: number;
}

const defaults: BlobHostOptions = { pollMs: 2000, maxAttempts: 5 };
const RECEIPTS = "azure-webjobs-hosts";
const POISON = "webjobs-blobtrigger-poison";

/** `container/prefix{name}.csv` → the container and a matcher that yields the named parts. */
export function compileBlobPath(path: string): { container: string; match(blobName: string): Record<string, string> | undefined } {
  const slash = path.indexOf("/");
  const container = slash < 0 ? path : path.slice(0, slash);
  const pattern = slash < 0 ? "{name}" : path.slice(slash + 1);
  const names: string[] = [];
  const source = pattern.replace(/\{([A-Za-z0-9_]+)\}|[.*+?^$()|[\]\\]/g, (token, name: string | undefined) => {
    if (name === undefined) return `\\${token}`;
    names.push(name);
    return "(.+?)";
  });
  const regex = new RegExp(`^${source}$`);
  return {
    container,
    match(blobName) {
      const m = regex.exec(blobName);
      if (m === null) return undefined;
      return Object.fromEntries(names.map((n, i) => [n, m[i + 1] ?? ""]));
    },
  };
}

/**
 * Runs blob-triggered functions: scans the watched containers, runs each new or changed blob once per
 * version, and keeps receipts in `azure-webjobs-hosts` (as the Functions host does) so a restart does
 * not run a blob again. A scan runs every `pollMs`, and at once when `notify` says a blob was written
 * (the local SFTP server does on each upload), as Azure's event-based trigger would.
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
    private readonly log: (line: string) => void,
    options: Partial<BlobHostOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    this.blobs = BlobServiceClient.fromConnectionString(connectionString);
    this.queues = QueueServiceClient.fromConnectionString(connectionString);
  }

  async start(): Promise<void> {
    this.running = true;
    await this.blobs.getContainerClient(RECEIPTS).createIfNotExists();
    await this.queues.getQueueClient(POISON).createIfNotExists();
    for (const fn of this.functions.filter((f) => f.trigger.type === "blobTrigger")) {
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
  private async scan(fn: LoadedFunction, container: ContainerClient, match: (name: string) => Record<string, string> | undefined): Promise<void> {
    for await (const blob of container.listBlobsFlat()) {
      if (!this.running) return;
      const parts = match(blob.name);
      if (parts === undefined) continue;
      const etag = blob.properties.etag ?? "";
      const receipt = this.blobs.getContainerClient(RECEIPTS).getBlockBlobClient(`blobreceipts/local/${fn.name}/${container.containerName}/${blob.name}`);
      let attempts = 0;
      try {
        const properties = await receipt.getProperties();
        if (properties.metadata?.etag === etag && (properties.metadata.status === "done" || properties.metadata.status === "poison")) continue;
        if (properties.metadata?.etag === etag) attempts = Number(properties.metadata.attempts ?? "0");
      } catch (error) {
        if (!(error instanceof RestError && error.statusCode === 404)) throw error;
      }
      const client = container.getBlobClient(blob.name);
      const context = invocationContext(fn.name, this.log, {
        ...parts,
        blobTrigger: `${container.containerName}/${blob.name}`,
        uri: client.url,
        properties: { etag, length: blob.properties.contentLength },
      });
      let status = "done";
      try {
        const content = await client.downloadToBuffer();
        await fn.handler(content, context);
      } catch (error) {
        attempts++;
        status = attempts >= this.options.maxAttempts ? "poison" : "failed";
        this.log(JSON.stringify({ level: "error", message: "blob function failed", function: fn.name, blob: blob.name, attempts, error: String(error) }));
        if (status === "poison") {
          await this.queues.getQueueClient(POISON).sendMessage(Buffer.from(JSON.stringify({ FunctionId: fn.name, BlobType: "BlockBlob", ContainerName: container.containerName, BlobName: blob.name, ETag: etag })).toString("base64"));
        }
      }
      await receipt.upload("", 0, { metadata: { etag, status, attempts: String(attempts) } });
    }
  }

  private async poll(fn: LoadedFunction, container: ContainerClient, match: (name: string) => Record<string, string> | undefined): Promise<void> {
    const name = container.containerName;
    while (this.running) {
      this.notified.delete(name);
      try {
        await this.scan(fn, container, match);
      } catch (error) {
        if (this.running) this.log(JSON.stringify({ level: "warn", message: "blob scan failed", container: name, error: String(error) }));
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
