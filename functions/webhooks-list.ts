import { z } from "zod";
import { services } from "../shared/composition";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { webhookSchema, webhookStatusSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksList = endpoint({
  name: "webhooks-list",
  method: "GET",
  route: "api/v1/settings/webhooks",
  summary: "List webhooks (secrets are never returned); status=disabled lists those to look at",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery.extend({ status: webhookStatusSchema.optional() }),
  responses: [
    {
      status: 200,
      description: "A page of webhooks",
      schema: z.object({ data: z.array(webhookSchema), pagination: paginationSchema }),
    },
  ],
  async handle({ query }) {
    const { status, ...page } = query;
    const result = await services()
      .webhooks.listWebhooks()
      .execute(page, status !== undefined ? { status } : {});
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(query.page, query.pageSize, result.totalItems) },
    };
  },
});

registerEndpoint(webhooksList);
