import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Re-enqueues pending webhook deliveries (and recoveries' steps) whose message was lost or whose attempt was cut short. */
export const deliveriesSweep = registerTimerFunction("deliveries-sweep", {
  schedule: getSetting("DELIVERIES_SWEEP_SCHEDULE"),
  handle: async (log) => {
    const { deliveries, recoveries } = await services().webhooks.sweepDeliveries().execute();
    if (deliveries > 0) log.warn("overdue webhook deliveries re-enqueued", { count: deliveries });
    if (recoveries > 0) log.warn("stalled webhook recoveries taken up again", { count: recoveries });
  },
});
