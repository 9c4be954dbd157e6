import { z } from "zod";
import { services } from "../shared/composition";
import { securityIdParams, securitySchema } from "../shared/domain/security";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";

export const securitiesGet = endpoint({
  name: "securities-get",
  method: "GET",
  route: "api/v1/securities/{securityId}",
  summary: "Get one security by id or ISIN",
  tag: "Securities",
  scope: "api.read",
  params: securityIdParams,
  query: z.object({ asAt: asAtQuery }),
  responses: [
    {
      status: 200,
      description: "The security (as at asAt, when given: 404 if it was not known yet)",
      schema: z.object({ data: securitySchema }),
      headers: asAtResponseHeader,
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const asAt = asAtOf(query.asAt);
    const data = await services().investments.getSecurity().execute(params.securityId, asAt);
    return { status: 200, body: { data }, headers: asAtHeaders(asAt) };
  },
});

registerEndpoint(securitiesGet);
