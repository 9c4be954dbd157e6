import type { EventEnvelope } from "../../domain/events";
import type { OutgoingMessage } from "../../ports/message-bus";
import type { PendingEvent } from "../../ports/outbox";

/** Envelopes per `events` message, and the JSON size a message stays under (a storage-queue message holds 64 KB of base64). */
const ENVELOPES_PER_MESSAGE = 25;
const MESSAGE_BYTES = 40_000;

/**
 * The `events` messages for some events: arrays of envelopes (each with the `id` consumers deduplicate
 * on), up to 25 or 40 KB a message. One message per event would cost a queue send, receive and delete
 * per event, which on storage queues is most of what an event costs (a 10,000-record import emits
 * 10,000 events). Events with a trace context of their own (the relay's, from the outbox) go in messages
 * of that trace only; the others are sent in the sender's.
 */
export function eventMessages(events: readonly PendingEvent[]): OutgoingMessage[] {
  const byTrace = new Map<string | undefined, PendingEvent[]>();
  for (const event of events) byTrace.set(event.traceparent, [...(byTrace.get(event.traceparent) ?? []), event]);
  return [...byTrace].flatMap(([traceparent, traced]) =>
    batches(traced).map((body) => (traceparent !== undefined ? { body, traceparent } : { body })),
  );
}

function batches(events: readonly EventEnvelope[]): EventEnvelope[][] {
  const bodies: EventEnvelope[][] = [];
  let batch: EventEnvelope[] = [];
  let bytes = 0;
  for (const { id, event, timestamp, data } of events) {
    const envelope: EventEnvelope = { id, event, timestamp, data };
    const size = Buffer.byteLength(JSON.stringify(envelope));
    if (batch.length > 0 && (batch.length === ENVELOPES_PER_MESSAGE || bytes + size > MESSAGE_BYTES)) {
      bodies.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(envelope);
    bytes += size + 1;
  }
  if (batch.length > 0) bodies.push(batch);
  return bodies;
}
