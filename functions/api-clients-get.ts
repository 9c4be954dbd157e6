import { z } from "zod";
import { services } from "../shared/composition";
import { apiClientSchema, clientIdParams } from "../shared/domain/api-client";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const apiClientsGet = endpoint({
  name: "api-clients-get",
  method: "GET",
  route: "api/v1/settings/api-clients/{clientId}",
  summary: "Get one API client",
  tag: "System settings",
  scope: "api.admin",
  params: clientIdParams,
  responses: [{ status: 200, description: "The API client", schema: z.object({ data: apiClientSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().access.getApiClient().execute(params.clientId) } };
  },
});

registerEndpoint(apiClientsGet);
