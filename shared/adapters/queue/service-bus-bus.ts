import type * as ServiceBus from "@azure/service-bus";
import type { ServiceBusClient, ServiceBusMessage, ServiceBusSender } from "@azure/service-bus";
import type { TokenCredential } from "@azure/identity";
import { currentTraceparent } from "../../observability/trace-context";
import type { MessageBus, OutgoingMessage, QueueName } from "../../ports/message-bus";

/** Scheduled messages per request: scheduleMessages sends them in one AMQP request, which has a size limit. */
const SCHEDULE_CHUNK = 100;

/**
 * The SDK, loaded when a bus on Service Bus is made rather than with this module: the composition
 * imports every adapter, and a run on storage queues (the local runtime) would otherwise pay for its
 * ~200 modules at every start.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when this bus is used
const serviceBusSdk = (): typeof ServiceBus => require("@azure/service-bus") as typeof ServiceBus;

/** A namespace name (`ids-sb`) or its host name (`ids-sb.servicebus.windows.net`). */
export const serviceBusHost = (namespace: string): string =>
  namespace.includes(".") ? namespace : `${namespace}.servicebus.windows.net`;

/**
 * The message bus on Azure Service Bus queues: JSON bodies (contentType application/json, which the
 * Functions trigger hands over parsed), sent in as few batches as fit; a delayed message is scheduled
 * (its scheduled enqueue time). Retries and dead-lettering are the broker's (the queue's maxDeliveryCount).
 * Each message carries its trace context in the `Diagnostic-Id` application property (and `traceparent`),
 * which the Functions Service Bus trigger continues, as the SDK stamps it on messages sent within a span.
 */
export class ServiceBusMessageBus implements MessageBus {
  /** One sender per queue, kept open: each opens an AMQP link, which is slow to set up. */
  private readonly senders = new Map<QueueName, ServiceBusSender>();

  constructor(private readonly client: ServiceBusClient) {}

  static fromConnectionString(connectionString: string): ServiceBusMessageBus {
    return new ServiceBusMessageBus(new (serviceBusSdk().ServiceBusClient)(connectionString));
  }

  static fromNamespace(namespace: string, credential: TokenCredential): ServiceBusMessageBus {
    return new ServiceBusMessageBus(new (serviceBusSdk().ServiceBusClient)(serviceBusHost(namespace), credential));
  }

  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const sender = this.sender(queue);
    const now = Date.now();
    const immediate: ServiceBusMessage[] = [];
    const delayed = new Map<number, ServiceBusMessage[]>();
    const current = currentTraceparent();
    for (const message of messages) {
      const traceparent = message.traceparent ?? current;
      const outgoing: ServiceBusMessage = {
        body: message.body,
        contentType: "application/json",
        ...(traceparent !== undefined ? { applicationProperties: { "Diagnostic-Id": traceparent, traceparent } } : {}),
      };
      const delaySeconds = Math.max(0, message.delaySeconds ?? 0);
      if (delaySeconds === 0) immediate.push(outgoing);
      else {
        const at = now + Math.ceil(delaySeconds * 1000);
        delayed.set(at, [...(delayed.get(at) ?? []), outgoing]);
      }
    }
    await this.sendInBatches(sender, queue, immediate);
    // A batch takes its envelope's annotations from its first message, so scheduled messages go apart.
    for (const [at, group] of delayed) {
      for (let i = 0; i < group.length; i += SCHEDULE_CHUNK)
        await sender.scheduleMessages(group.slice(i, i + SCHEDULE_CHUNK), new Date(at));
    }
  }

  private async sendInBatches(
    sender: ServiceBusSender,
    queue: QueueName,
    messages: readonly ServiceBusMessage[],
  ): Promise<void> {
    if (messages.length === 0) return;
    let batch = await sender.createMessageBatch();
    for (const message of messages) {
      if (batch.tryAddMessage(message)) continue;
      if (batch.count === 0) throw new Error(`a message for ${queue} is larger than a Service Bus batch allows`);
      await sender.sendMessages(batch);
      batch = await sender.createMessageBatch();
      if (!batch.tryAddMessage(message))
        throw new Error(`a message for ${queue} is larger than a Service Bus batch allows`);
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
