import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { webhookRecoverSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksRecover = endpoint({
  name: "webhooks-recover",
  method: "POST",
  route: "api/v1/settings/webhooks/{id}/recover",
  summary:
    "Send again every delivery that ended failed since `since`: one at a time, oldest first, each with its own webhook-id, through the queue",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam() }),
  body: webhookRecoverSchema,
  responses: [
    {
      status: 202,
      description: "How many failed deliveries will be sent again (0: none failed since then)",
      schema: z.object({ data: z.object({ count: z.number().int() }).meta({ id: "WebhookRecovery" }) }),
    },
  ],
  errors: [404, 409, 422],
  async handle({ params, body }) {
    return {
      status: 202,
      body: {
        data: await services().webhooks.recoverWebhookDeliveries().execute({ webhookId: params.id, since: body.since }),
      },
    };
  },
});

registerEndpoint(webhooksRecover);
