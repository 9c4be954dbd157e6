import { z } from "zod";
import { services } from "../shared/composition";
import { deliverySchema } from "../shared/domain/delivery";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksDeliveriesRetry = endpoint({
  name: "webhooks-deliveries-retry",
  method: "POST",
  route: "api/v1/settings/webhooks/{id}/deliveries/{deliveryId}/retry",
  summary:
    "Send a delivery now (same webhook-id, same body): a failed one with a fresh retry schedule, a pending one ahead of its schedule, which continues after it",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam(), deliveryId: idParam() }),
  responses: [
    {
      status: 202,
      description: "The delivery, pending and queued to be sent now",
      schema: z.object({ data: deliverySchema }),
    },
  ],
  errors: [404, 409],
  async handle({ params }) {
    return {
      status: 202,
      body: {
        data: await services()
          .webhooks.retryWebhookDelivery()
          .execute({ webhookId: params.id, deliveryId: params.deliveryId }),
      },
    };
  },
});

registerEndpoint(webhooksDeliveriesRetry);
