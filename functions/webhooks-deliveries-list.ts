import { z } from "zod";
import { services } from "../shared/composition";
import { deliveryEventNames, deliverySchema, deliveryStatuses } from "../shared/domain/delivery";
import { idParam } from "../shared/domain/ids";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { fromInstant, toInstant } from "../shared/domain/time-bounds";
import { checkRange } from "../shared/http/date-range";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksDeliveriesList = endpoint({
  name: "webhooks-deliveries-list",
  method: "GET",
  route: "api/v1/settings/webhooks/{id}/deliveries",
  summary: "A webhook's deliveries, newest first; filters combine; from/to bound createdAt (inclusive)",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam() }),
  query: cursorQuery.extend({
    status: z.enum(deliveryStatuses).optional(),
    event: z.enum(deliveryEventNames).optional(),
    from: fromInstant.optional(),
    to: toInstant.optional(),
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
    const { status, event, from, to, ...paging } = query;
    checkRange(from, to);
    const request = pageRequestOf(paging);
    const filter = {
      ...(status ? { status } : {}),
      ...(event ? { event } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    };
    const result = await services().webhooks.listWebhookDeliveries().execute({ webhookId: params.id, filter, request });
    return { status: 200, body: { data: result.items, pagination: cursorPaginationOf(request, result) } };
  },
});

registerEndpoint(webhooksDeliveriesList);
