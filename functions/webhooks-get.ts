import { z } from "zod";
import { services } from "../shared/composition";
import { webhookIdParams, webhookSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksGet = endpoint({
  name: "webhooks-get",
  method: "GET",
  route: "api/v1/settings/webhooks/{id}",
  summary: "Get one webhook (its secret is never returned)",
  tag: "System settings",
  scope: "api.admin",
  params: webhookIdParams,
  responses: [{ status: 200, description: "The webhook", schema: z.object({ data: webhookSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().webhooks.getWebhook().execute(params.id) } };
  },
});

registerEndpoint(webhooksGet);
