import { app, type InvocationContext } from "@azure/functions";
import { services } from "../shared/composition";
import { valuationMessageSchema } from "../shared/app/valuation-queue";

/**
 * Values the stale portfolio-dates of the portfolios a `valuations` message names. Throwing makes the
 * queue deliver the message again; after its last attempt the markers remain for the sweep.
 */
export async function valuationsRun(message: unknown, context: InvocationContext): Promise<void> {
  const parsed = valuationMessageSchema.safeParse(message);
  if (!parsed.success) {
    // A message no retry can make valid: logged and dropped rather than retried into the poison queue.
    context.error(JSON.stringify({ message: "malformed valuations message dropped", issues: parsed.error.issues.map((i) => i.message) }));
    return;
  }
  await services().investments.valueStalePortfolios().run(parsed.data.portfolioIds);
}

app.serviceBusQueue("valuations-run", { queueName: "valuations", connection: "SERVICEBUS", handler: valuationsRun });
