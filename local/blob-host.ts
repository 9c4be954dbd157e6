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
 * not run a blob again.
 */
export class BlobHost {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly options: BlobHostOptions;
  private readonly blobs: BlobServiceClient;
  private readonly queues: QueueServiceClient;

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
    await Promise.all(this.loops);
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
    while (this.running) {
      try {
        await this.scan(fn, container, match);
      } catch (error) {
        if (this.running) this.log(JSON.stringify({ level: "warn", message: "blob scan failed", container: container.containerName, error: String(error) }));
      }
      if (this.running) await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }
}
