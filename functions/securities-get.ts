import { z } from "zod";
import { services } from "../shared/composition";
import { securityIdParams, securitySchema } from "../shared/domain/security";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const securitiesGet = endpoint({
  name: "securities-get",
  method: "GET",
  route: "api/v1/securities/{securityId}",
  summary: "Get one security by id or ISIN",
  tag: "Securities",
  scope: "api.read",
  params: securityIdParams,
  responses: [{ status: 200, description: "The security", schema: z.object({ data: securitySchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().investments.getSecurity().execute(params.securityId) } };
  },
});

registerEndpoint(securitiesGet);
