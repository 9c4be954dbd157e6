import { app, type InvocationContext } from "@azure/functions";
import { z } from "zod";
import { services } from "../shared/composition";
import { eventEnvelopeSchema, type EventEnvelope } from "../shared/domain/events";

/**
 * An `events` message: one envelope, or several in an array. A publisher that batches envelopes
 * (a 10,000-record import emits 10,000 events) saves a queue send, receive and delete per event,
 * which on storage queues is most of what an event costs.
 */
const messageSchema = z.union([eventEnvelopeSchema, z.array(z.unknown()).min(1).max(1000)]);

/** Events from the outbox → a delivery per subscribed webhook, each first attempt made at once. */
export async function eventsFanOut(message: unknown, context: InvocationContext): Promise<void> {
  const parsed = messageSchema.safeParse(message);
  if (!parsed.success) {
    // Retrying cannot make a malformed message valid: say so and let it go.
    context.error(JSON.stringify({ message: "events message is not an event envelope; dropped", issues: parsed.error.issues.slice(0, 5) }));
    return;
  }
  const events: EventEnvelope[] = [];
  for (const item of Array.isArray(parsed.data) ? parsed.data : [parsed.data]) {
    const event = eventEnvelopeSchema.safeParse(item);
    if (event.success) events.push(event.data);
    else context.error(JSON.stringify({ message: "an entry of an events message is not an event envelope; dropped", issues: event.error.issues.slice(0, 5) }));
  }
  await services().webhooks.fanOutEvents().run(events);
}

app.serviceBusQueue("events-fan-out", { queueName: "events", connection: "SERVICEBUS", handler: eventsFanOut });
