/** The queues between functions: Service Bus queues in Azure, Azurite storage queues locally. */
export const queueNames = ["events", "valuations", "deliveries"] as const;
export type QueueName = (typeof queueNames)[number];

export interface OutgoingMessage {
  /** JSON-serialisable; the queue-triggered function receives it parsed. */
  body: unknown;
  /** Not delivered before this many seconds from now (0 or absent: at once). */
  delaySeconds?: number;
}

/** Sends messages to the queues that trigger the asynchronous functions (at-least-once delivery). */
export interface MessageBus {
  send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void>;
}
