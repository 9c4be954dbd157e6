import { z } from "zod";
import { services } from "../shared/composition";
import { webhookCreateSchema, webhookWithSecretSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksCreate = endpoint({
  name: "webhooks-create",
  method: "POST",
  route: "api/v1/settings/webhooks",
  summary:
    "Subscribe a URL to events: a signed webhook.test event is sent first and the webhook saved only if the URL answers 2xx within 15 s; the secret is shown only in this response",
  tag: "System settings",
  scope: "api.admin",
  body: webhookCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created, with its signing secret",
      schema: z.object({ data: webhookWithSecretSchema }),
      headers: { Location: "URL of the new webhook" },
    },
  ],
  errors: [413, 422],
  async handle({ body }) {
    const webhook = await services().webhooks.createWebhook().execute(body);
    return {
      status: 201,
      body: { data: webhook },
      headers: { Location: `/api/v1/settings/webhooks/${webhook.id}`, "Cache-Control": "no-store" },
    };
  },
});

registerEndpoint(webhooksCreate);
