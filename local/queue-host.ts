import { QueueServiceClient, type QueueClient } from "@azure/storage-queue";
import { invocationContext, type LoadedFunction } from "./functions-host";

export interface QueueHostOptions {
  pollMs: number;
  /** Seconds a received message stays invisible while its function runs (and before a retry). */
  visibilityTimeout: number;
  /** After this many failed deliveries a message moves to `<queue>-poison`, as the Functions host does. */
  maxDequeueCount: number;
}

const defaults: QueueHostOptions = { pollMs: 500, visibilityTimeout: 30, maxDequeueCount: 5 };

/** A queue message's content as the Functions host hands it over: base64 decoded if it was, JSON parsed if it is. */
export function decodeMessage(text: string): unknown {
  let content = text;
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 === 0) {
    const decoded = Buffer.from(text, "base64");
    if (decoded.toString("base64") === text && !decoded.toString("utf8").includes("\uFFFD")) content = decoded.toString("utf8");
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
 */
export class QueueHost {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly options: QueueHostOptions;
  private readonly service: QueueServiceClient;

  constructor(
    private readonly functions: LoadedFunction[],
    connectionString: string,
    private readonly log: (line: string) => void,
    options: Partial<QueueHostOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    this.service = QueueServiceClient.fromConnectionString(connectionString);
  }

  async start(): Promise<void> {
    this.running = true;
    for (const fn of this.functions.filter((f) => f.trigger.type === "queueTrigger" || f.trigger.type === "serviceBusTrigger")) {
      const queue = this.service.getQueueClient(String(fn.trigger.queueName));
      await queue.createIfNotExists();
      await this.service.getQueueClient(`${String(fn.trigger.queueName)}-poison`).createIfNotExists();
      this.loops.push(this.poll(fn, queue));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async poll(fn: LoadedFunction, queue: QueueClient): Promise<void> {
    while (this.running) {
      let received = 0;
      try {
        const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 16, visibilityTimeout: this.options.visibilityTimeout });
        received = receivedMessageItems.length;
        for (const message of receivedMessageItems) {
          const context = invocationContext(fn.name, this.log, {
            id: message.messageId,
            dequeueCount: message.dequeueCount,
            insertionTime: message.insertedOn.toISOString(),
            expirationTime: message.expiresOn.toISOString(),
            nextVisibleTime: message.nextVisibleOn.toISOString(),
            popReceipt: message.popReceipt,
          });
          try {
            await fn.handler(decodeMessage(message.messageText), context);
            await queue.deleteMessage(message.messageId, message.popReceipt);
          } catch (error) {
            this.log(JSON.stringify({ level: "error", message: "queue function failed", function: fn.name, messageId: message.messageId, dequeueCount: message.dequeueCount, error: String(error) }));
            if (message.dequeueCount >= this.options.maxDequeueCount) {
              await this.service.getQueueClient(`${queue.name}-poison`).sendMessage(message.messageText);
              await queue.deleteMessage(message.messageId, message.popReceipt);
            }
          }
        }
      } catch (error) {
        if (this.running) this.log(JSON.stringify({ level: "warn", message: "queue poll failed", queue: queue.name, error: String(error) }));
      }
      if (received === 0 && this.running) await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }
}
