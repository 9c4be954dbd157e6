import { QueueServiceClient } from "@azure/storage-queue";
import type { TokenCredential } from "@azure/identity";
import { mapConcurrent } from "../../domain/concurrency";
import { currentTraceparent } from "../../observability/trace-context";
import type { MessageBus, OutgoingMessage, QueueName } from "../../ports/message-bus";
import { wrapTraced } from "./storage-queue-envelope";

/** Storage queues allow a message to stay invisible for at most 7 days. */
const MAX_VISIBILITY_SECONDS = 7 * 24 * 3600;

/**
 * The message bus on Azure Storage queues (Azurite locally): JSON bodies base64-encoded as the Functions
 * queue trigger expects them; a delay is the message's initial visibility timeout. The trace context
 * travels wrapped with the body (storage-queue-envelope.ts), unwrapped by the local queue host.
 */
export class StorageQueueMessageBus implements MessageBus {
  private readonly listeners: ((queue: QueueName) => void)[] = [];

  constructor(private readonly service: QueueServiceClient) {}

  /** Calls `listener` after messages visible at once were sent to a queue (the local runtime's queue host receives them at once). */
  onSent(listener: (queue: QueueName) => void): void {
    this.listeners.push(listener);
  }

  static fromConnectionString(connectionString: string): StorageQueueMessageBus {
    return new StorageQueueMessageBus(QueueServiceClient.fromConnectionString(connectionString));
  }

  static fromEndpoint(endpoint: string, credential: TokenCredential): StorageQueueMessageBus {
    return new StorageQueueMessageBus(new QueueServiceClient(endpoint, credential));
  }

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    const client = this.service.getQueueClient(queue);
    let visibleNow = false;
    const current = currentTraceparent();
    await mapConcurrent(messages, 16, async (message) => {
      const text = Buffer.from(JSON.stringify(wrapTraced(message.body, message.traceparent ?? current))).toString(
        "base64",
      );
      const delay = Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(message.delaySeconds ?? 0)));
      await client.sendMessage(text, delay > 0 ? { visibilityTimeout: delay } : {});
      visibleNow ||= delay === 0;
    });
    if (visibleNow) for (const listener of this.listeners) listener(queue);
  }
}
