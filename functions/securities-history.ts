import { z } from "zod";
import { services } from "../shared/composition";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { securityIdParams, securitySchema } from "../shared/domain/security";
import { historyEntrySchema } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const securitiesHistory = endpoint({
  name: "securities-history",
  method: "GET",
  route: "api/v1/securities/{securityId}/history",
  summary: "The versions of a security (by id or ISIN), newest first",
  tag: "Securities",
  scope: "api.read",
  params: securityIdParams,
  query: cursorQuery,
  responses: [
    {
      status: 200,
      description: "A page of versions",
      schema: z.object({
        data: z.array(historyEntrySchema(securitySchema, "SecurityVersion")),
        pagination: cursorPaginationSchema,
      }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const request = pageRequestOf(query);
    const page = await services().investments.recordHistories().security(params.securityId, request);
    return { status: 200, body: { data: page.items, pagination: cursorPaginationOf(request, page) } };
  },
});

registerEndpoint(securitiesHistory);
