import { z } from "zod";
import { services } from "../shared/composition";
import { pageQuery, paginationSchema } from "../shared/domain/pagination";
import { webhookSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksList = endpoint({
  name: "webhooks-list",
  method: "GET",
  route: "api/v1/settings/webhooks",
  summary: "List webhooks (secrets are never returned)",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery,
  responses: [{ status: 200, description: "A page of webhooks", schema: z.object({ data: z.array(webhookSchema), pagination: paginationSchema }) }],
  async handle({ query }) {
    const { items, pagination } = await services().webhooks.webhooks().list(query.page, query.pageSize);
    return { status: 200, body: { data: items, pagination } };
  },
});

registerEndpoint(webhooksList);
