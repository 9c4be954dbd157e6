import { z } from "zod";
import { services } from "../shared/composition";
import { eventEnvelopeSchema, type EventEnvelope } from "../shared/domain/events";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/**
 * An `events` message: one envelope, or several in an array. A publisher that batches envelopes
 * (a 10,000-record import emits 10,000 events) saves a queue send, receive and delete per event,
 * which on storage queues is most of what an event costs.
 */
const messageSchema = z.union([eventEnvelopeSchema, z.array(z.unknown()).min(1).max(1000)]);

/** Events from the outbox → a delivery per subscribed webhook, each first attempt made at once. */
export const eventsFanOut = registerQueueFunction("events-fan-out", {
  queueName: "events",
  schema: messageSchema,
  handle: async (message, log) => {
    const events: EventEnvelope[] = [];
    for (const item of Array.isArray(message) ? message : [message]) {
      const event = eventEnvelopeSchema.safeParse(item);
      if (event.success) events.push(event.data);
      else
        log.error("an entry of an events message is not an event envelope; dropped", {
          issues: event.error.issues.slice(0, 5).map((i) => i.message),
        });
    }
    await services().webhooks.fanOutEvents().execute(events);
  },
});
