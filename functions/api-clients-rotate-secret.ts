import { z } from "zod";
import { services } from "../shared/composition";
import { apiClientWithSecretSchema, clientIdParams } from "../shared/domain/api-client";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const apiClientsRotateSecret = endpoint({
  name: "api-clients-rotate-secret",
  method: "POST",
  route: "api/v1/settings/api-clients/{clientId}/rotate-secret",
  summary: "Replace an API client's secret; the new secret is shown only in this response",
  tag: "System settings",
  scope: "api.admin",
  params: clientIdParams,
  responses: [
    {
      status: 200,
      description: "The client with its new secret",
      schema: z.object({ data: apiClientWithSecretSchema }),
    },
  ],
  errors: [404],
  async handle({ params }) {
    const client = await services().access.rotateApiClientSecret().execute(params.clientId);
    return { status: 200, body: { data: client }, headers: { "Cache-Control": "no-store" } };
  },
});

registerEndpoint(apiClientsRotateSecret);
