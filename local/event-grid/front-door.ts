import { randomUUID } from "node:crypto";
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { BlobServiceClient } from "@azure/storage-blob";
import type { QueueServiceClient } from "@azure/storage-queue";
import { eventfulRequest, type EventfulRequest } from "./blob-request";
import type { EventFilter, FilteredEvent } from "./event-filter";
import { blobSubject, BLOB_CREATED, eventMessage, type StorageEvent } from "./storage-event";
import { deliveryQueueOf, SUBSCRIPTIONS_CONTAINER } from "./subscription-names";
import type { EventSubscription } from "./subscriptions";

export interface FrontDoorOptions {
  /** The port Azurite's blob service listens on (loopback). */
  upstreamPort: number;
  accountName: string;
  accountKey: string;
  /** Azurite's queue service, where events are delivered. */
  queueEndpoint: string;
  /** Where failures are reported (the runtime shows the child's stderr). */
  log: (line: string) => void;
}

/** What the runtime tells this child about the front door. */
export interface FrontDoorConfig {
  /** The blob port of the runtime's connection string. */
  port: number;
  /** The port Azurite's blob service is given (`--blobPort`). */
  upstreamPort: number;
  accountName: string;
  accountKey: string;
  queueEndpoint: string;
}

/**
 * What delivering events takes (the storage SDKs, zod for the subscriptions): loaded once the front
 * door listens, so that it is not on the emulator's start-up path.
 */
interface Delivery {
  blobs: BlobServiceClient;
  queues: QueueServiceClient;
  isNotFound(error: unknown): boolean;
  matches(filter: EventFilter, event: FilteredEvent): boolean;
  load(skipped: (name: string, problem: string) => void): Promise<EventSubscription[]>;
}

async function loadDelivery(options: FrontDoorOptions): Promise<Delivery> {
  const [blob, queue, filters, subscriptions] = await Promise.all([
    import("@azure/storage-blob"),
    import("@azure/storage-queue"),
    import("./event-filter"),
    import("./subscriptions"),
  ]);
  const blobs = new blob.BlobServiceClient(
    `http://127.0.0.1:${options.upstreamPort}/${options.accountName}`,
    new blob.StorageSharedKeyCredential(options.accountName, options.accountKey),
  );
  return {
    blobs,
    queues: new queue.QueueServiceClient(
      options.queueEndpoint,
      new queue.StorageSharedKeyCredential(options.accountName, options.accountKey),
    ),
    isNotFound: (error) => error instanceof queue.RestError && error.statusCode === 404,
    matches: filters.matchesFilter,
    load: (skipped) => subscriptions.loadSubscriptions(blobs.getContainerClient(SUBSCRIPTIONS_CONTAINER), skipped),
  };
}

/** How long stop() waits for requests in flight (and the events they raise) before closing their connections. */
const DRAIN_MS = 10_000;

/**
 * The local storage account's blob endpoint: every request passes through to Azurite unchanged, and
 * each one that succeeds and raises a storage event in Azure (blob-request.ts) has that event
 * delivered, before its answer goes back, to the queue of every subscription whose filter passes it
 * (event-filter.ts). So the blob trigger sees what Event Grid would deliver, whoever wrote the blob
 * (the SFTP drop, the service, a test, a person with Storage Explorer): a metadata change, a staged
 * block or a read raises nothing. An event is on its queue before the writer hears of its success; a
 * crash between the two loses it as it would lose the write (Azurite keeps both the same way).
 */
export class StorageFrontDoor {
  private readonly server: Server;
  private readonly agent = new Agent({ keepAlive: true });
  private delivery: Promise<Delivery> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Bumped by every write to the subscriptions container: the cached list is read again. */
  private version = 0;
  private cached: { version: number; subscriptions: Promise<EventSubscription[]> } | undefined;
  private sequence = 0;

  constructor(private readonly options: FrontDoorOptions) {
    this.server = createServer((req, res) => {
      const done = this.pass(req, res).catch((error: unknown) => {
        options.log(`storage front door: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      this.inFlight.add(done);
      void done.finally(() => this.inFlight.delete(done));
    });
  }

  /** Listens on `host:port` and answers the port. */
  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        const address = this.server.address();
        resolve(typeof address === "object" && address !== null ? address.port : port);
        // Loaded now, while the runtime starts its other parts, rather than at the first event.
        void this.deliveryReady().catch(() => undefined);
      });
    });
  }

  /** Takes no more requests, lets those in flight finish (their events delivered), then closes. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS))),
    ]);
    clearTimeout(timer);
    this.server.closeAllConnections();
    this.agent.destroy();
    await closed;
  }

  /** One request, forwarded; its event (if any) delivered before its answer is. */
  private pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://front-door");
    const method = req.method ?? "GET";
    const eventful = eventfulRequest(method, url.pathname, url.searchParams, req.headers);
    const writesSubscriptions =
      method !== "GET" && method !== "HEAD" && url.pathname.split("/")[2] === SUBSCRIPTIONS_CONTAINER;
    return new Promise<void>((resolve, reject) => {
      const upstream = request(
        {
          host: "127.0.0.1",
          port: this.options.upstreamPort,
          method,
          path: req.url,
          headers: req.headers,
          agent: this.agent,
        },
        (answer) => {
          const status = answer.statusCode ?? 502;
          const ok = status >= 200 && status < 300;
          if (writesSubscriptions) this.version++;
          const raised = eventful !== undefined && ok ? this.raise(eventful, req, answer) : Promise.resolve();
          void raised.then(() => {
            res.writeHead(status, answer.statusMessage, answer.rawHeaders);
            answer.pipe(res);
            res.once("close", () => {
              if (!res.writableFinished) answer.destroy();
              resolve();
            });
          });
        },
      );
      upstream.once("error", reject);
      // The client went away mid-request: so does the request to Azurite (a partial body is never stored).
      req.once("close", () => {
        if (!req.complete) upstream.destroy();
      });
      req.pipe(upstream);
    });
  }

  private deliveryReady(): Promise<Delivery> {
    this.delivery ??= loadDelivery(this.options);
    return this.delivery;
  }

  /** Delivers the event of a successful request to the subscriptions whose filters pass it; never throws. */
  private async raise(op: EventfulRequest, req: IncomingMessage, answer: IncomingMessage): Promise<void> {
    try {
      const event = this.eventOf(op, req, answer);
      const delivery = await this.deliveryReady();
      const subscriptions = (await this.subscriptions(delivery)).filter((s) => delivery.matches(s.filter, event));
      if (subscriptions.length === 0) return;
      if (event.eventType === BLOB_CREATED) await this.describe(delivery, op, event);
      const message = eventMessage(event);
      for (const s of subscriptions) await this.deliver(delivery, deliveryQueueOf(s.function), message);
    } catch (error) {
      this.options.log(
        `storage front door: the ${op.api} event of ${op.container}/${JSON.stringify(op.blob)} was not delivered: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private eventOf(op: EventfulRequest, req: IncomingMessage, answer: IncomingMessage): StorageEvent {
    const header = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);
    const eTag = header(answer.headers.etag)?.replace(/"/g, "");
    const requestId = header(answer.headers["x-ms-request-id"]);
    const clientRequestId = header(req.headers["x-ms-client-request-id"]);
    return {
      id: randomUUID(),
      topic: `/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.Storage/storageAccounts/${op.account}`,
      subject: blobSubject(op.container, op.blob),
      eventType: op.eventType,
      eventTime: new Date().toISOString(),
      data: {
        api: op.api,
        ...(clientRequestId !== undefined ? { clientRequestId } : {}),
        ...(requestId !== undefined ? { requestId } : {}),
        ...(eTag !== undefined ? { eTag } : {}),
        blobType: "BlockBlob",
        url: `http://${req.headers.host ?? "127.0.0.1"}${new URL(req.url ?? "/", "http://x").pathname}`,
        sequencer: String(++this.sequence).padStart(32, "0"),
      },
      dataVersion: "",
      metadataVersion: "1",
    };
  }

  /** The created blob's type and length, as a BlobCreated event carries them (when it still is that version). */
  private async describe(delivery: Delivery, op: EventfulRequest, event: StorageEvent): Promise<void> {
    try {
      const p = await delivery.blobs.getContainerClient(op.container).getBlobClient(op.blob).getProperties();
      if (p.etag?.replace(/"/g, "") !== event.data.eTag) return;
      event.data.contentLength = p.contentLength ?? 0;
      if (p.contentType !== undefined) event.data.contentType = p.contentType;
    } catch {
      // Gone or replaced already: the event goes without them, as the trigger does not need them.
    }
  }

  private async deliver(delivery: Delivery, queueName: string, message: string): Promise<void> {
    const queue = delivery.queues.getQueueClient(queueName);
    try {
      await queue.sendMessage(message);
    } catch (error) {
      // Subscribed before its host first started: Event Grid would hold the event; the queue is made now.
      if (!delivery.isNotFound(error)) throw error;
      await queue.createIfNotExists();
      await queue.sendMessage(message);
    }
  }

  private subscriptions(delivery: Delivery): Promise<EventSubscription[]> {
    if (this.cached?.version !== this.version) {
      const subscriptions = delivery.load((name, problem) =>
        this.options.log(`storage front door: subscription ${name} skipped: ${problem}`),
      );
      // A failed read is not kept: the next event reads again.
      subscriptions.catch(() => (this.cached = undefined));
      this.cached = { version: this.version, subscriptions };
    }
    return this.cached.subscriptions;
  }
}
