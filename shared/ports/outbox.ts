import type { EventEnvelope } from "../domain/events";

/** An entry still to publish: the event, and the W3C trace context of the work that appended it. */
export type PendingEvent = EventEnvelope & { traceparent?: string };

/**
 * Events stored durably beside the data that caused them, until they are published to the `events`
 * queue (at-least-once: an entry is marked published only after the bus accepted it).
 */
export interface Outbox {
  /**
   * Appends events; an event whose id is already there is not appended again. Each entry keeps the
   * trace context it is appended in (the request's or the invocation's), so that whoever publishes it
   * later continues that trace.
   */
  append(events: readonly EventEnvelope[]): Promise<void>;
  list(filter: { event?: string; since?: string }): Promise<EventEnvelope[]>;
  /** Entries not yet published that were appended before `appendedBefore` (ISO time), oldest first, at most `limit`, each with its trace context. */
  unpublished(appendedBefore: string, limit: number): Promise<PendingEvent[]>;
  /** Marks entries as published to the bus, so the relay does not send them again. Unknown ids are ignored. */
  markPublished(ids: readonly string[]): Promise<void>;
}
