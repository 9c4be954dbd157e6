import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Re-enqueues pending webhook deliveries whose message was lost or whose attempt was cut short. */
export const deliveriesSweep = registerTimerFunction("deliveries-sweep", {
  schedule: getSetting("DELIVERIES_SWEEP_SCHEDULE"),
  handle: async (log) => {
    const count = await services().webhooks.sweepDeliveries().execute();
    if (count > 0) log.warn("overdue webhook deliveries re-enqueued", { count });
  },
});
