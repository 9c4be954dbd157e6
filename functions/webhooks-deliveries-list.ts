import { z } from "zod";
import { services } from "../shared/composition";
import { deliveryEventNames, deliverySchema, deliveryStatuses } from "../shared/domain/delivery";
import { idParam } from "../shared/domain/ids";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksDeliveriesList = endpoint({
  name: "webhooks-deliveries-list",
  method: "GET",
  route: "api/v1/settings/webhooks/{id}/deliveries",
  summary: "A webhook's deliveries, newest first",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam() }),
  query: cursorQuery.extend({
    status: z.enum(deliveryStatuses).optional(),
    event: z.enum(deliveryEventNames).optional(),
  }),
  responses: [
    {
      status: 200,
      description: "A page of deliveries",
      schema: z.object({ data: z.array(deliverySchema), pagination: cursorPaginationSchema }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const { status, event, ...paging } = query;
    const request = pageRequestOf(paging);
    const filter = { ...(status ? { status } : {}), ...(event ? { event } : {}) };
    const result = await services().webhooks.listWebhookDeliveries().execute({ webhookId: params.id, filter, request });
    return { status: 200, body: { data: result.items, pagination: cursorPaginationOf(request, result) } };
  },
});

registerEndpoint(webhooksDeliveriesList);
