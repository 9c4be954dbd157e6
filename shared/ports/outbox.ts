import type { EventEnvelope } from "../domain/events";

/**
 * Events stored durably beside the data that caused them, until they are published to the `events`
 * queue (at-least-once: an entry is marked published only after the bus accepted it).
 */
export interface Outbox {
  /** Appends events; an event whose id is already there is not appended again. */
  append(events: readonly EventEnvelope[]): Promise<void>;
  list(filter: { event?: string; since?: string }): Promise<EventEnvelope[]>;
  /** Entries not yet published that were appended before `appendedBefore` (ISO time), oldest first, at most `limit`. */
  unpublished(appendedBefore: string, limit: number): Promise<EventEnvelope[]>;
  /** Marks entries as published to the bus, so the relay does not send them again. Unknown ids are ignored. */
  markPublished(ids: readonly string[]): Promise<void>;
}
