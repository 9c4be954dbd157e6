import { z } from "zod";
import { services } from "../shared/composition";
import { deliveryDetailSchema } from "../shared/domain/delivery";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksDeliveriesGet = endpoint({
  name: "webhooks-deliveries-get",
  method: "GET",
  route: "api/v1/settings/webhooks/{id}/deliveries/{deliveryId}",
  summary: "One delivery with its attempt log",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam(), deliveryId: idParam() }),
  responses: [{ status: 200, description: "The delivery", schema: z.object({ data: deliveryDetailSchema }) }],
  errors: [404],
  async handle({ params }) {
    return {
      status: 200,
      body: {
        data: await services()
          .webhooks.getWebhookDelivery()
          .execute({ webhookId: params.id, deliveryId: params.deliveryId }),
      },
    };
  },
});

registerEndpoint(webhooksDeliveriesGet);
