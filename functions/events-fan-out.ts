import { app, type InvocationContext } from "@azure/functions";
import { services } from "../shared/composition";
import { eventEnvelopeSchema } from "../shared/domain/events";

/** One event from the outbox → a delivery per subscribed webhook, enqueued on `deliveries`. */
export async function eventsFanOut(message: unknown, context: InvocationContext): Promise<void> {
  const parsed = eventEnvelopeSchema.safeParse(message);
  if (!parsed.success) {
    // Retrying cannot make a malformed message valid: say so and let it go.
    context.error(JSON.stringify({ message: "events message is not an event envelope; dropped", issues: parsed.error.issues.slice(0, 5) }));
    return;
  }
  await services().fanOutEvents().run([parsed.data]);
}

app.serviceBusQueue("events-fan-out", { queueName: "events", connection: "SERVICEBUS", handler: eventsFanOut });
