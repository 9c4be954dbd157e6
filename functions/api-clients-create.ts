import { z } from "zod";
import { services } from "../shared/composition";
import { apiClientCreateSchema, apiClientWithSecretSchema } from "../shared/domain/api-client";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const apiClientsCreate = endpoint({
  name: "api-clients-create",
  method: "POST",
  route: "api/v1/settings/api-clients",
  summary: "Create an API client; the secret is shown only in this response",
  tag: "System settings",
  scope: "api.admin",
  body: apiClientCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created, with its secret",
      schema: z.object({ data: apiClientWithSecretSchema }),
      headers: { Location: "URL of the new client" },
    },
  ],
  errors: [413],
  async handle({ body }) {
    const client = await services().access.createApiClient().execute(body);
    return {
      status: 201,
      body: { data: client },
      headers: { Location: `/api/v1/settings/api-clients/${client.clientId}`, "Cache-Control": "no-store" },
    };
  },
});

registerEndpoint(apiClientsCreate);
