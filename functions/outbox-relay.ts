import { services } from "../shared/composition";
import { getConfig } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/**
 * Publishes outbox events that never reached the `events` queue (a crash or a bus outage after the data
 * write), then sends again the published events whose fan-out never completed (their message lost, or
 * the process ended mid-way): together, every event reaches every subscribed webhook's log.
 */
export const outboxRelay = registerTimerFunction("outbox-relay", {
  schedule: getConfig().OUTBOX_RELAY_SCHEDULE,
  handle: async (log) => {
    const published = await services().core.relayOutbox().execute();
    if (published.length > 0)
      log.warn("outbox events re-published by the relay", {
        count: published.length,
        eventIds: published.slice(0, 20),
      });
    const fannedOutAgain = await services().core.sweepFanOut().execute();
    if (fannedOutAgain.length > 0)
      log.warn("published events whose fan-out never completed sent again", {
        count: fannedOutAgain.length,
        eventIds: fannedOutAgain.slice(0, 20),
      });
  },
});
