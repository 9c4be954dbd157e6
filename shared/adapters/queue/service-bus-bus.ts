import { ServiceBusClient, type ServiceBusMessage, type ServiceBusSender } from "@azure/service-bus";
import type { TokenCredential } from "@azure/identity";
import type { MessageBus, OutgoingMessage, QueueName } from "../../ports/message-bus";

/** A namespace name (`ids-sb`) or its host name (`ids-sb.servicebus.windows.net`). */
export const serviceBusHost = (namespace: string): string => (namespace.includes(".") ? namespace : `${namespace}.servicebus.windows.net`);

/**
 * The message bus on Azure Service Bus queues: JSON bodies (contentType application/json, which the
 * Functions trigger hands over parsed), sent in as few batches as fit; a delay becomes the message's
 * scheduled enqueue time. Retries and dead-lettering are the broker's (the queue's maxDeliveryCount).
 */
export class ServiceBusMessageBus implements MessageBus {
  /** One sender per queue, kept open: each opens an AMQP link, which is slow to set up. */
  private readonly senders = new Map<QueueName, ServiceBusSender>();

  constructor(private readonly client: ServiceBusClient) {}

  static fromConnectionString(connectionString: string): ServiceBusMessageBus {
    return new ServiceBusMessageBus(new ServiceBusClient(connectionString));
  }

  static fromNamespace(namespace: string, credential: TokenCredential): ServiceBusMessageBus {
    return new ServiceBusMessageBus(new ServiceBusClient(serviceBusHost(namespace), credential));
  }

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const sender = this.sender(queue);
    const now = Date.now();
    let batch = await sender.createMessageBatch();
    for (const message of messages) {
      const outgoing = toServiceBusMessage(message, now);
      if (batch.tryAddMessage(outgoing)) continue;
      if (batch.count === 0) throw new Error(`a message for ${queue} is larger than a Service Bus batch allows`);
      await sender.sendMessages(batch);
      batch = await sender.createMessageBatch();
      if (!batch.tryAddMessage(outgoing)) throw new Error(`a message for ${queue} is larger than a Service Bus batch allows`);
    }
    if (batch.count > 0) await sender.sendMessages(batch);
  }

  async close(): Promise<void> {
    await Promise.all([...this.senders.values()].map((s) => s.close()));
    this.senders.clear();
    await this.client.close();
  }

  private sender(queue: QueueName): ServiceBusSender {
    let sender = this.senders.get(queue);
    if (sender === undefined) {
      sender = this.client.createSender(queue);
      this.senders.set(queue, sender);
    }
    return sender;
  }
}

function toServiceBusMessage(message: OutgoingMessage, now: number): ServiceBusMessage {
  const delaySeconds = Math.max(0, message.delaySeconds ?? 0);
  return {
    body: message.body,
    contentType: "application/json",
    ...(delaySeconds > 0 ? { scheduledEnqueueTimeUtc: new Date(now + delaySeconds * 1000) } : {}),
  };
}
