import { ResourceFactoryResolver } from "@azure/functions-extensions-base";
import type { Logger } from "../shared/logging";
import { BlobServiceClient, RestError, type BlockBlobClient } from "@azure/storage-blob";
import { QueueServiceClient, type DequeuedMessageItem, type QueueClient } from "@azure/storage-queue";
import { invoke, type LoadedFunction } from "./functions-host";
import { BLOB_SOURCE, checkBlobTrigger, compileBlobPath, modelBindingData } from "./blob-trigger";
import { blobOfSubject, type StorageEvent } from "./event-grid/storage-event";
import { storageEventSchema } from "./event-grid/storage-event-schema";
import { loadSubscriptions } from "./event-grid/subscriptions";
import { deliveryQueueOf, SUBSCRIPTIONS_CONTAINER } from "./event-grid/subscription-names";
import { holdMessage } from "./queue-lease";
import { decodeMessage } from "./queue-host";

export interface BlobHostOptions {
  /** How often an idle function's event queue is read (`notify` reads it at once). */
  pollMs: number;
  /** Deliveries of one event (each counted as it is received, before the run); past them the blob goes to `webjobs-blobtrigger-poison`. */
  maxAttempts: number;
  /** Seconds a received event stays invisible, renewed while its run lasts: after a crash it comes back within this. */
  visibilityTimeout: number;
  /** Seconds before an event whose run failed is delivered again. */
  retrySeconds: number;
}

const defaults: BlobHostOptions = { pollMs: 500, maxAttempts: 5, visibilityTimeout: 10, retrySeconds: 1 };
const RECEIPTS = "azure-webjobs-hosts";
const POISON = "webjobs-blobtrigger-poison";
/** A run is renewed for as long as it lasts (a large file takes minutes): the visibility timeout bounds only a crashed one. */
const RENEW_FOR_SECONDS = 24 * 3600;

type PathMatcher = ReturnType<typeof compileBlobPath>;

/**
 * Runs blob-triggered functions as the Functions host runs an Event Grid blob trigger: from the events
 * the storage account raised and a subscription delivered to the function's blob-trigger queue (the
 * local storage front door, event-grid/front-door.ts, delivers them as Event Grid would). A blob
 * change no event reports (a metadata stamp, a staged block, SFTP's empty blob at open) runs nothing;
 * each reported version (name + ETag) runs once, with a receipt in `azure-webjobs-hosts` so a repeated
 * event does not run it again. Each delivery is counted before the run (the message's dequeue count,
 * as in Azure): an event whose runs keep taking the whole process down (out of memory, kill -9) comes
 * back after the visibility timeout, and after `maxAttempts` deliveries the blob is reported on
 * `webjobs-blobtrigger-poison` and left alone. The function is handed the binding data Azure sends for
 * `sdkBinding` (a reference), resolved through the registered resource factory: the host never reads
 * the blob. No container is ever scanned, so no blob can hold up another's event.
 */
export class BlobHost {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly options: BlobHostOptions;
  private readonly blobs: BlobServiceClient;
  private readonly queues: QueueServiceClient;
  /** What ends the idle waits early. */
  private readonly wakers = new Set<() => void>();

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

  /** Refuses a blob trigger Azure would not run as this host does, or one no subscription delivers to (it would never run). */
  async start(): Promise<void> {
    const triggered = this.functions.filter((f) => f.trigger.type === "blobTrigger");
    for (const fn of triggered) checkBlobTrigger(fn);
    const subscriptions = await loadSubscriptions(
      this.blobs.getContainerClient(SUBSCRIPTIONS_CONTAINER),
      (name, problem) => this.log.warn("event subscription skipped", { name, problem }),
    );
    for (const fn of triggered)
      if (!subscriptions.some((s) => s.function === fn.name))
        throw new Error(
          `function '${fn.name}': no Event Grid subscription delivers to it, so its blob trigger would never run (in Azure, postdeploy subscribes it; locally, provisioning does, from the same filter file)`,
        );
    this.running = true;
    await this.blobs.getContainerClient(RECEIPTS).createIfNotExists();
    await this.queues.getQueueClient(POISON).createIfNotExists();
    for (const fn of triggered) {
      const queue = this.queues.getQueueClient(deliveryQueueOf(fn.name));
      await queue.createIfNotExists();
      this.loops.push(this.poll(fn, queue, compileBlobPath(String(fn.trigger.path))));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.wakers) wake();
    await Promise.all(this.loops);
  }

  /** A blob was just written from this process (the SFTP drop commits an upload): read the events now, not at the next poll. */
  notify(): void {
    for (const wake of this.wakers) wake();
  }

  private async poll(fn: LoadedFunction, queue: QueueClient, path: PathMatcher): Promise<void> {
    while (this.running) {
      let message: DequeuedMessageItem | undefined;
      try {
        const received = await queue.receiveMessages({
          numberOfMessages: 1,
          visibilityTimeout: this.options.visibilityTimeout,
        });
        message = received.receivedMessageItems[0];
      } catch (error) {
        if (this.running) this.log.warn("blob event poll failed", { queue: queue.name, error: String(error) });
      }
      if (message !== undefined) {
        await this.handle(fn, queue, message, path).catch((error: unknown) =>
          // Left as it is: the event comes back after its visibility timeout.
          this.log.warn("blob event handling failed", { function: fn.name, error: String(error) }),
        );
        continue;
      }
      if (this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.options.pollMs);
      this.wakers.add(wake);
    });
  }

  /** One delivered event: run the function on its blob version unless done already, poisoned, or out of attempts. */
  private async handle(
    fn: LoadedFunction,
    queue: QueueClient,
    message: DequeuedMessageItem,
    path: PathMatcher,
  ): Promise<void> {
    const drop = (): Promise<unknown> => queue.deleteMessage(message.messageId, message.popReceipt);
    const parsed = storageEventSchema.safeParse(decodeMessage(message.messageText));
    const blob = parsed.success ? blobOfSubject(parsed.data.subject) : undefined;
    if (!parsed.success || blob === undefined) {
      // No retry can make it an event: reported and dropped, never left to block the queue.
      this.log.error("malformed blob event dropped", { function: fn.name, messageId: message.messageId });
      await drop();
      return;
    }
    const event = parsed.data;
    const parts = blob.container === path.container ? path.match(blob.blob) : undefined;
    // An event outside the trigger's path (a subscription broader than it): the host ignores it, as Azure's does.
    if (parts === undefined) return void (await drop());
    const etag = event.data.eTag ?? "";
    const receipt = this.blobs
      .getContainerClient(RECEIPTS)
      .getBlockBlobClient(`blobreceipts/local/${fn.name}/${blob.container}/${blob.blob}`);
    const settled = await receiptOf(receipt);
    if (settled?.etag === etag && (settled.status === "done" || settled.status === "poison"))
      return void (await drop());
    const attempts = message.dequeueCount;
    if (attempts > this.options.maxAttempts) {
      // Every delivery was counted and none finished: the last ones died with the process.
      await this.poison(fn, blob, etag, receipt, attempts - 1, "the runs of this blob never finished");
      return void (await drop());
    }
    await receipt.upload("", 0, { metadata: { etag, status: "running", attempts: String(attempts) } });
    const lease = holdMessage(
      queue,
      message,
      { visibilityTimeout: this.options.visibilityTimeout, maxRenewalSeconds: RENEW_FOR_SECONDS },
      this.log,
    );
    let failure: unknown;
    try {
      await this.run(fn, blob, parts, event);
    } catch (error) {
      failure = error;
    }
    const popReceipt = await lease.end();
    if (failure === undefined) {
      await receipt.upload("", 0, { metadata: { etag, status: "done", attempts: String(attempts) } });
      await queue.deleteMessage(message.messageId, popReceipt);
      return;
    }
    const reason = failure instanceof Error ? String(failure) : JSON.stringify(failure);
    this.log.error("blob function failed", { function: fn.name, blob: blob.blob, attempts, error: reason });
    if (attempts >= this.options.maxAttempts) {
      await this.poison(fn, blob, etag, receipt, attempts, reason);
      await queue.deleteMessage(message.messageId, popReceipt);
      return;
    }
    await receipt.upload("", 0, { metadata: { etag, status: "failed", attempts: String(attempts) } });
    await queue.updateMessage(message.messageId, popReceipt, undefined, this.options.retrySeconds);
  }

  private async run(
    fn: LoadedFunction,
    blob: { container: string; blob: string },
    parts: Record<string, string>,
    event: StorageEvent,
  ): Promise<void> {
    const client = this.blobs.getContainerClient(blob.container).getBlobClient(blob.blob);
    const triggerMetadata = {
      ...parts,
      blobTrigger: `${blob.container}/${blob.blob}`,
      uri: client.url,
      properties: { etag: event.data.eTag, length: event.data.contentLength },
    };
    const argument = ResourceFactoryResolver.getInstance().createClient(
      BLOB_SOURCE,
      modelBindingData(fn.trigger["connection"], blob.container, blob.blob),
    );
    // A new trace per run, as in Azure: the file's import, its events and valuations continue it.
    await invoke(fn, [argument], { log: this.log, triggerMetadata, ownSpan: true });
  }

  /** Gives up on a blob version: a message on the poison queue, as Azure sends, and a receipt that keeps it from running again. */
  private async poison(
    fn: LoadedFunction,
    blob: { container: string; blob: string },
    etag: string,
    receipt: BlockBlobClient,
    attempts: number,
    reason: string,
  ): Promise<void> {
    this.log.error("blob function gave up: poison", { function: fn.name, blob: blob.blob, attempts, reason });
    await this.queues.getQueueClient(POISON).sendMessage(
      Buffer.from(
        JSON.stringify({
          FunctionId: fn.name,
          BlobType: "BlockBlob",
          ContainerName: blob.container,
          BlobName: blob.blob,
          ETag: etag,
        }),
      ).toString("base64"),
    );
    await receipt.upload("", 0, { metadata: { etag, status: "poison", attempts: String(attempts) } });
  }
}

/** What a blob's receipt says of the version it last ran, if it has one. */
async function receiptOf(receipt: BlockBlobClient): Promise<{ etag?: string; status?: string } | undefined> {
  try {
    const { metadata } = await receipt.getProperties();
    return { etag: metadata?.etag, status: metadata?.status };
  } catch (error) {
    if (error instanceof RestError && error.statusCode === 404) return undefined;
    throw error;
  }
}
