import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Deletes expired rate-limit windows and idempotency keys on a schedule. */
export async function countersPurge(_timer: Timer, context: InvocationContext): Promise<void> {
  const purged = await services().purgeExpiredCounters().execute();
  context.info(JSON.stringify({ message: "expired counters purged", purged }));
}

app.timer("counters-purge", { schedule: getConfig().PURGE_SCHEDULE, handler: countersPurge, runOnStartup: false });
