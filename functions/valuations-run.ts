import { valuationMessageSchema } from "../shared/app/investments/valuation-queue";
import { services } from "../shared/composition";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/**
 * Values the stale portfolio-dates of the portfolios a `valuations` message names. Throwing makes the
 * queue deliver the message again; after its last attempt the markers remain for the sweep.
 */
export const valuationsRun = registerQueueFunction("valuations-run", {
  queueName: "valuations",
  schema: valuationMessageSchema,
  handle: async (message) => {
    await services().investments.valueStalePortfolios().execute(message);
  },
});
