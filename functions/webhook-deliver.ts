import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/** The deliveries to attempt, each with the due time the message was sent for (absent in messages from before due times were named). */
const deliveriesSchema = z.object({
  deliveries: z
    .array(z.object({ webhookId: idParam(), id: idParam(), due: z.iso.datetime().optional() }))
    .min(1)
    .max(1000),
});
/** A step of a webhook's recovery. */
const recoverySchema = z.object({
  recovery: z.object({ webhookId: idParam(), step: z.number().int().min(0) }),
});
const messageSchema = z.union([deliveriesSchema, recoverySchema]);

/** Attempts the deliveries a `deliveries` message names (those pending and due; the rest are skipped), or runs a recovery's step. */
export const webhookDeliver = registerQueueFunction("webhook-deliver", {
  queueName: "deliveries",
  schema: messageSchema,
  handle: async (message) => {
    if ("recovery" in message) await services().webhooks.runDeliveryRecovery().execute(message.recovery);
    else await services().webhooks.deliverWebhooks().execute(message);
  },
});
