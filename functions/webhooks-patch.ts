import { z } from "zod";
import { services } from "../shared/composition";
import { webhookIdParams, webhookPatchSchema, webhookSchema } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksPatch = endpoint({
  name: "webhooks-patch",
  method: "PATCH",
  route: "api/v1/settings/webhooks/{id}",
  summary:
    "Change a webhook's url (verified with a webhook.test event first), events, description or status (enabled clears disabledReason)",
  tag: "System settings",
  scope: "api.admin",
  params: webhookIdParams,
  body: webhookPatchSchema,
  responses: [{ status: 200, description: "The updated webhook", schema: z.object({ data: webhookSchema }) }],
  errors: [404, 413, 422],
  async handle({ params, body }) {
    return {
      status: 200,
      body: { data: await services().webhooks.updateWebhook().execute({ id: params.id, patch: body }) },
    };
  },
});

registerEndpoint(webhooksPatch);
