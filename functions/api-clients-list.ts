import { z } from "zod";
import { services } from "../shared/composition";
import { apiClientSchema } from "../shared/domain/api-client";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const apiClientsList = endpoint({
  name: "api-clients-list",
  method: "GET",
  route: "api/v1/settings/api-clients",
  summary: "List API clients",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery,
  responses: [
    {
      status: 200,
      description: "A page of API clients",
      schema: z.object({ data: z.array(apiClientSchema), pagination: paginationSchema }),
    },
  ],
  async handle({ query }) {
    const { page, pageSize } = query;
    const result = await services().access.listApiClients().execute({ page, pageSize });
    return { status: 200, body: { data: result.items, pagination: paginationOf(page, pageSize, result.totalItems) } };
  },
});

registerEndpoint(apiClientsList);
