import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Re-enqueues pending webhook deliveries whose message was lost or whose attempt was cut short. */
export async function deliveriesSweep(_timer: Timer, context: InvocationContext): Promise<void> {
  const count = await services().webhooks.sweepDeliveries().run();
  if (count > 0) context.warn(JSON.stringify({ message: "overdue webhook deliveries re-enqueued", count }));
}

app.timer("deliveries-sweep", { schedule: getConfig().DELIVERIES_SWEEP_SCHEDULE, handler: deliveriesSweep, runOnStartup: false });
