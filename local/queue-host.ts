import { QueueServiceClient, type DequeuedMessageItem, type QueueClient } from "@azure/storage-queue";
import { unwrapTraced } from "../shared/adapters/queue/storage-queue-envelope";
import type { Logger } from "../shared/logging";
import { invoke, type LoadedFunction } from "./functions-host";
import { holdMessage } from "./queue-lease";

export interface QueueHostOptions {
  pollMs: number;
  /** Seconds a received message stays invisible while its function runs (and before a retry). */
  visibilityTimeout: number;
  /** After this many failed deliveries a message moves to `<queue>-poison`, as the Functions host does. */
  maxDequeueCount: number;
  /** Handlers in flight per queue, as host.json's `extensions.serviceBus.maxConcurrentCalls` in Azure. */
  maxConcurrentCalls: number;
  /**
   * How long a running handler keeps its message invisible by renewing it, as host.json's
   * `maxAutoLockRenewalDuration` (5 minutes) does for a Service Bus lock.
   */
  maxRenewalSeconds: number;
}

/**
 * A received message stays invisible for 10 s, renewed every 5 s while its handler runs: after a crash
 * (nothing renews any more) the messages it held come back within 10 s.
 */
export const queueHostDefaults: QueueHostOptions = {
  pollMs: 500,
  visibilityTimeout: 10,
  maxDequeueCount: 5,
  maxConcurrentCalls: 32,
  maxRenewalSeconds: 300,
};

/** A storage queue hands out at most 32 messages per receive. */
const MAX_RECEIVE = 32;

/**
 * A queue message as the Functions host reads it: its content (base64 decoded if it was, JSON parsed
 * if it is), and the sender's trace context when the storage-queue bus wrapped it with one.
 */
export function readMessage(text: string): { body: unknown; traceparent?: string } {
  return unwrapTraced(parseContent(text));
}

/** A queue message's content as the Functions host hands it to the function. */
export const decodeMessage = (text: string): unknown => readMessage(text).body;

function parseContent(text: string): unknown {
  let content = text;
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 === 0) {
    const decoded = Buffer.from(text, "base64");
    if (decoded.toString("base64") === text && !decoded.toString("utf8").includes("\uFFFD"))
      content = decoded.toString("utf8");
  }
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/**
 * Runs queue-triggered functions, storage-queue and Service Bus alike, on the local Azurite queue of
 * the same name (there is no local Service Bus broker; the message-bus port hides the difference).
 * Up to `maxConcurrentCalls` handlers run at once per queue; the loop receives again whenever a slot is
 * free, and a message whose handler is still running is renewed so no second worker picks it up.
 */
export class QueueHost {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly options: QueueHostOptions;
  private readonly service: QueueServiceClient;
  /** Per queue, what ends the current idle wait early (a message was just sent to it). */
  private readonly wakers = new Map<string, () => void>();

  constructor(
    private readonly functions: LoadedFunction[],
    connectionString: string,
    private readonly log: Logger,
    options: Partial<QueueHostOptions> = {},
  ) {
    this.options = { ...queueHostDefaults, ...options };
    this.service = QueueServiceClient.fromConnectionString(connectionString);
  }

  async start(): Promise<void> {
    this.running = true;
    for (const fn of this.functions.filter(
      (f) => f.trigger.type === "queueTrigger" || f.trigger.type === "serviceBusTrigger",
    )) {
      const queue = this.service.getQueueClient(String(fn.trigger.queueName));
      await queue.createIfNotExists();
      await this.service.getQueueClient(`${String(fn.trigger.queueName)}-poison`).createIfNotExists();
      this.loops.push(this.poll(fn, queue));
    }
  }

  /** Stops receiving and waits for the handlers in flight. */
  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.wakers.values()) wake();
    await Promise.all(this.loops);
  }

  /**
   * A message was just sent to `queue` from this process: receive now rather than at the next poll, as
   * a Service Bus trigger would (its receiver is handed messages as they arrive).
   */
  notify(queue: string): void {
    this.wakers.get(queue)?.();
  }

  /** Waits `pollMs`, or less when notified. */
  private idle(queue: string): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(wake, this.options.pollMs);
      const wakers = this.wakers;
      function wake(): void {
        clearTimeout(timer);
        if (wakers.get(queue) === wake) wakers.delete(queue);
        resolve();
      }
      wakers.set(queue, wake);
    });
  }

  private async poll(fn: LoadedFunction, queue: QueueClient): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    while (this.running) {
      const free = this.options.maxConcurrentCalls - inFlight.size;
      if (free <= 0) {
        await Promise.race(inFlight);
        continue;
      }
      let received = 0;
      try {
        const { receivedMessageItems } = await queue.receiveMessages({
          numberOfMessages: Math.min(MAX_RECEIVE, free),
          visibilityTimeout: this.options.visibilityTimeout,
        });
        received = receivedMessageItems.length;
        for (const message of receivedMessageItems) {
          const run: Promise<void> = this.handle(fn, queue, message).finally(() => inFlight.delete(run));
          inFlight.add(run);
        }
      } catch (error) {
        if (this.running) this.log.warn("queue poll failed", { queue: queue.name, error: String(error) });
      }
      if (received === 0 && this.running) await this.idle(queue.name);
    }
    await Promise.all(inFlight);
  }

  /** Runs one message's handler; never throws (a failure leaves the message to reappear, or poisons it). */
  private async handle(fn: LoadedFunction, queue: QueueClient, message: DequeuedMessageItem): Promise<void> {
    const triggerMetadata = {
      id: message.messageId,
      dequeueCount: message.dequeueCount,
      insertionTime: message.insertedOn.toISOString(),
      expirationTime: message.expiresOn.toISOString(),
      nextVisibleTime: message.nextVisibleOn.toISOString(),
      popReceipt: message.popReceipt,
    };
    const lease = holdMessage(queue, message, this.options, this.log);
    let failure: unknown;
    try {
      // In the sender's trace, as the Service Bus trigger continues a message's Diagnostic-Id.
      const { body, traceparent } = readMessage(message.messageText);
      await invoke(fn, [body], {
        log: this.log,
        triggerMetadata,
        ownSpan: true,
        ...(traceparent !== undefined ? { parent: traceparent } : {}),
      });
    } catch (error) {
      failure = error;
    }
    const popReceipt = await lease.end();
    try {
      if (failure === undefined) {
        await queue.deleteMessage(message.messageId, popReceipt);
        return;
      }
      this.log.error("queue function failed", {
        function: fn.name,
        messageId: message.messageId,
        dequeueCount: message.dequeueCount,
        error: failure instanceof Error ? String(failure) : JSON.stringify(failure),
      });
      if (message.dequeueCount >= this.options.maxDequeueCount) {
        await this.service.getQueueClient(`${queue.name}-poison`).sendMessage(message.messageText);
        await queue.deleteMessage(message.messageId, popReceipt);
      }
    } catch (error) {
      this.log.warn("queue message settlement failed", {
        queue: queue.name,
        messageId: message.messageId,
        error: String(error),
      });
    }
  }
}
