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
  summary: "Send a failed delivery again (same webhook-id, same body, a fresh retry schedule)",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam(), deliveryId: idParam() }),
  responses: [
    { status: 202, description: "The delivery, pending again and queued", schema: z.object({ data: deliverySchema }) },
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
