import { z } from "zod";
import { services } from "../shared/composition";
import { apiClientSchema } from "../shared/domain/api-client";
import { pageQuery, paginationSchema } from "../shared/domain/pagination";
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
    { status: 200, description: "A page of API clients", schema: z.object({ data: z.array(apiClientSchema), pagination: paginationSchema }) },
  ],
  async handle({ query }) {
    const { items, pagination } = await services().access.apiClients().list(query.page, query.pageSize);
    return { status: 200, body: { data: items, pagination } };
  },
});

registerEndpoint(apiClientsList);
