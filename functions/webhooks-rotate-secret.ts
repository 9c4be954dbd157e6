import { z } from "zod";
import { services } from "../shared/composition";
import { webhookIdParams, webhookWithSecretSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksRotateSecret = endpoint({
  name: "webhooks-rotate-secret",
  method: "POST",
  route: "api/v1/settings/webhooks/{id}/rotate-secret",
  summary:
    "Replace a webhook's signing secret (shown only in this response); for 24 h deliveries carry a signature with the old secret too",
  tag: "System settings",
  scope: "api.admin",
  params: webhookIdParams,
  responses: [
    {
      status: 200,
      description: "The webhook with its new secret",
      schema: z.object({ data: webhookWithSecretSchema }),
    },
  ],
  errors: [404],
  async handle({ params }) {
    const webhook = await services().webhooks.rotateWebhookSecret().execute(params.id);
    return { status: 200, body: { data: webhook }, headers: { "Cache-Control": "no-store" } };
  },
});

registerEndpoint(webhooksRotateSecret);
