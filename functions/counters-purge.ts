import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Deletes expired rate-limit windows (and, later, idempotency records): Cosmos TTL is not relied on. */
export async function countersPurge(_timer: Timer, context: InvocationContext): Promise<void> {
  const purged = await services().counterStore().purgeExpired(services().clock.now());
  context.info(JSON.stringify({ message: "expired counters purged", purged }));
}

app.timer("counters-purge", { schedule: getConfig().PURGE_SCHEDULE, handler: countersPurge, runOnStartup: false });
