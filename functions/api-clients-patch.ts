import { z } from "zod";
import { services } from "../shared/composition";
import { apiClientPatchSchema, apiClientSchema, clientIdParams } from "../shared/domain/api-client";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const apiClientsPatch = endpoint({
  name: "api-clients-patch",
  method: "PATCH",
  route: "api/v1/settings/api-clients/{clientId}",
  summary: "Change an API client's name, scopes, tier or status (disabling it revokes its live tokens)",
  tag: "System settings",
  scope: "api.admin",
  params: clientIdParams,
  body: apiClientPatchSchema,
  responses: [{ status: 200, description: "The updated API client", schema: z.object({ data: apiClientSchema }) }],
  errors: [404, 413],
  async handle({ params, body }) {
    return {
      status: 200,
      body: { data: await services().access.updateApiClient().execute({ clientId: params.clientId, patch: body }) },
    };
  },
});

registerEndpoint(apiClientsPatch);
