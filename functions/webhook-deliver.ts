import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/** The deliveries to attempt, each with the due time the message was sent for (absent in messages from before due times were named). */
const messageSchema = z.object({
  deliveries: z
    .array(z.object({ webhookId: idParam(), id: idParam(), due: z.iso.datetime().optional() }))
    .min(1)
    .max(1000),
});

/** Attempts the deliveries a `deliveries` message names (those pending and due; the rest are skipped). */
export const webhookDeliver = registerQueueFunction("webhook-deliver", {
  queueName: "deliveries",
  schema: messageSchema,
  handle: async (message) => {
    await services().webhooks.deliverWebhooks().execute(message);
  },
});
