import { z } from "zod";
import { services } from "../shared/composition";
import { exportSchema } from "../shared/domain/export";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsList = endpoint({
  name: "exports-list",
  method: "GET",
  route: "api/v1/settings/exports",
  summary: "List scheduled exports (destination secrets are never returned)",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery,
  responses: [
    {
      status: 200,
      description: "A page of exports",
      schema: z.object({ data: z.array(exportSchema), pagination: paginationSchema }),
    },
  ],
  async handle({ query }) {
    const result = await services().exports.listExports().execute({ page: query.page, pageSize: query.pageSize });
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(query.page, query.pageSize, result.totalItems) },
    };
  },
});

registerEndpoint(exportsList);
