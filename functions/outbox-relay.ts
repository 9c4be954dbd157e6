import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Publishes outbox events that never reached the `events` queue (a crash or a bus outage after the data write). */
export const outboxRelay = registerTimerFunction("outbox-relay", {
  schedule: getSetting("OUTBOX_RELAY_SCHEDULE"),
  handle: async (log) => {
    const published = await services().core.relayOutbox().execute();
    if (published.length > 0)
      log.warn("outbox events re-published by the relay", {
        count: published.length,
        eventIds: published.slice(0, 20),
      });
  },
});
