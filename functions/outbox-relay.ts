import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Publishes outbox events that never reached the `events` queue (a crash or a bus outage after the data write). */
export async function outboxRelay(_timer: Timer, context: InvocationContext): Promise<void> {
  const published = await services().core.relayOutbox().run();
  if (published.length > 0) context.warn(JSON.stringify({ message: "outbox events re-published by the relay", count: published.length, eventIds: published.slice(0, 20) }));
}

app.timer("outbox-relay", { schedule: getConfig().OUTBOX_RELAY_SCHEDULE, handler: outboxRelay, runOnStartup: false });
