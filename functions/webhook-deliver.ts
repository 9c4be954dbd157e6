import { app, type InvocationContext } from "@azure/functions";
import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";

/** The deliveries to attempt, each with the due time the message was sent for (absent in messages from before due times were named). */
const messageSchema = z.object({ deliveries: z.array(z.object({ webhookId: idParam(), id: idParam(), due: z.iso.datetime().optional() })).min(1).max(1000) });

/** Attempts the deliveries a `deliveries` message names (those pending and due; the rest are skipped). */
export async function webhookDeliver(message: unknown, context: InvocationContext): Promise<void> {
  const parsed = messageSchema.safeParse(message);
  if (!parsed.success) {
    context.error(JSON.stringify({ message: "deliveries message names no deliveries; dropped", issues: parsed.error.issues.slice(0, 5) }));
    return;
  }
  await services().webhooks.deliverWebhooks().run(parsed.data);
}

app.serviceBusQueue("webhook-deliver", { queueName: "deliveries", connection: "SERVICEBUS", handler: webhookDeliver });
