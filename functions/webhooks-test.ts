import { z } from "zod";
import { services } from "../shared/composition";
import { deliverySchema } from "../shared/domain/delivery";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhooksTest = endpoint({
  name: "webhooks-test",
  method: "POST",
  route: "api/v1/settings/webhooks/{id}/test",
  summary: "Send the webhook.test event now; answers with the delivery and what the endpoint answered",
  tag: "System settings",
  scope: "api.admin",
  params: z.object({ id: idParam() }),
  responses: [
    {
      status: 200,
      description: "The test delivery after its first attempt",
      schema: z.object({ data: deliverySchema }),
    },
  ],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().webhooks.testWebhook().execute(params.id) } };
  },
});

registerEndpoint(webhooksTest);
