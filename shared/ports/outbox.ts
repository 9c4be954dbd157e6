import type { EventEnvelope } from "../domain/events";

/** Events waiting to be delivered, stored durably beside the data that caused them. */
export interface Outbox {
  /** Appends events; an event whose id is already there is not appended again. */
  append(events: readonly EventEnvelope[]): Promise<void>;
  list(filter: { event?: string; since?: string }): Promise<EventEnvelope[]>;
}
