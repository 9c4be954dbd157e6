import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Re-enqueues portfolios whose stale markers outlived their message (lost in a crash, or given up on by the queue). */
export const valuationsSweep = registerTimerFunction("valuations-sweep", {
  schedule: getSetting("VALUATION_SWEEP_SCHEDULE"),
  handle: async (log) => {
    const portfolioIds = await services().investments.sweepStaleValuations().execute();
    if (portfolioIds.length > 0) log.info("stale valuations re-enqueued", { portfolios: portfolioIds.length });
  },
});
