/** The queues between functions: Service Bus queues in Azure, Azurite storage queues locally. */
/**
 * `events` (outbox → fan-out), `valuations` (stale portfolio-dates), `deliveries` (webhook attempts),
 * `exports` (claimed export runs), `blob-sources` (blob source runs to list and copy), `feed-files`
 * (inbound files handed to ingestion: a resumed feed's waiting files).
 */
export const queueNames = ["events", "valuations", "deliveries", "exports", "blob-sources", "feed-files"] as const;
export type QueueName = (typeof queueNames)[number];

export interface OutgoingMessage {
  /** JSON-serialisable; the queue-triggered function receives it parsed. */
  body: unknown;
  /** Not delivered before this many seconds from now (0 or absent: at once). */
  delaySeconds?: number;
  /**
   * The W3C trace context the receiving function continues (absent: the sender's current one), so
   * that a chain of hops shows as one operation; the relay sends each event with its request's.
   */
  traceparent?: string;
}

/** Sends messages to the queues that trigger the asynchronous functions (at-least-once delivery). */
export interface MessageBus {
  send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void>;
}
