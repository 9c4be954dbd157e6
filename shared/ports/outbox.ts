import type { EventEnvelope } from "../domain/events";

/** An entry still to publish: the event, and the W3C trace context of the work that appended it. */
export type PendingEvent = EventEnvelope & { traceparent?: string };

/**
 * Events stored durably beside the data that caused them, pending until their fan-out is complete
 * (marked once every subscribed webhook has its delivery record; at least once: until then the relay,
 * and after it the fan-out sweep, send them again).
 */
export interface Outbox {
  /**
   * Appends events; an event whose id is already there is not appended again. Each entry keeps the
   * trace context it is appended in (the request's or the invocation's), so that whoever publishes it
   * later continues that trace.
   */
  append(events: readonly EventEnvelope[]): Promise<void>;
  list(filter: { event?: string; since?: string }): Promise<EventEnvelope[]>;
  /** Entries still pending (neither fanned out nor relayed) that were appended before `appendedBefore` (ISO time), oldest first, at most `limit`, each with its trace context. */
  unpublished(appendedBefore: string, limit: number): Promise<PendingEvent[]>;
  /**
   * Records that the relay or the sweep (just) sent entries to the bus: the relay does not send them
   * again, and the fan-out sweep waits its grace period from now before it does. Unknown ids are ignored.
   */
  markPublished(ids: readonly string[]): Promise<void>;
  /**
   * Records that the fan-out of these events is complete: a delivery record exists for every webhook
   * that was subscribed to each (so they are published too). Unknown ids are ignored.
   */
  markFannedOut(ids: readonly string[]): Promise<void>;
  /**
   * Entries the relay sent (published) whose fan-out has still not completed, last sent before
   * `publishedBefore` (ISO time), oldest first, at most `limit`, each with its trace context.
   */
  notFannedOut(publishedBefore: string, limit: number): Promise<PendingEvent[]>;
}
