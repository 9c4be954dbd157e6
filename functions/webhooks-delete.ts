import { services } from "../shared/composition";
import { webhookIdParams } from "../shared/domain/webhook";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksDelete = endpoint({
  name: "webhooks-delete",
  method: "DELETE",
  route: "api/v1/settings/webhooks/{id}",
  summary: "Delete a webhook; its pending deliveries stop",
  tag: "System settings",
  scope: "api.admin",
  params: webhookIdParams,
  responses: [{ status: 204, description: "Deleted" }],
  errors: [404],
  async handle({ params }) {
    await services().webhooks.deleteWebhook().execute(params.id);
    return { status: 204 };
  },
});

registerEndpoint(webhooksDelete);
