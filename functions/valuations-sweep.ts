import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Re-enqueues portfolios whose stale markers outlived their message (lost in a crash, or given up on by the queue). */
export async function valuationsSweep(_timer: Timer, context: InvocationContext): Promise<void> {
  const portfolioIds = await services().investments.sweepStaleValuations().run();
  if (portfolioIds.length > 0) context.log(JSON.stringify({ message: "stale valuations re-enqueued", portfolios: portfolioIds.length }));
}

app.timer("valuations-sweep", { schedule: getConfig().VALUATION_SWEEP_SCHEDULE, handler: valuationsSweep, runOnStartup: false });
