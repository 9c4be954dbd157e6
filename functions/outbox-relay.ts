import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/**
 * Sends again the outbox events whose fan-out has not completed within the grace period (never sent
 * after a crash or a bus outage, lost on the queue, or cut short mid fan-out), then those it sent
 * before that are still not fanned out: together, every event reaches every subscribed webhook's log.
 */
export const outboxRelay = registerTimerFunction("outbox-relay", {
  schedule: getSetting("OUTBOX_RELAY_SCHEDULE"),
  handle: async (log) => {
    const published = await services().core.relayOutbox().execute();
    if (published.length > 0)
      log.warn("outbox events not fanned out within the grace period sent again by the relay", {
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
