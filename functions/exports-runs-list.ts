import { z } from "zod";
import { services } from "../shared/composition";
import { exportIdParams } from "../shared/domain/export";
import { exportRunSchema } from "../shared/domain/export-run";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsRunsList = endpoint({
  name: "exports-runs-list",
  method: "GET",
  route: "api/v1/settings/exports/{id}/runs",
  summary: "An export's runs, newest first: status, file name, rows, bytes, attempts and, for a failure, why",
  tag: "System settings",
  scope: "api.admin",
  params: exportIdParams,
  query: pageQuery,
  responses: [
    {
      status: 200,
      description: "A page of runs",
      schema: z.object({ data: z.array(exportRunSchema), pagination: paginationSchema }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const result = await services()
      .exports.listExportRuns()
      .execute({ id: params.id, request: { page: query.page, pageSize: query.pageSize } });
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(query.page, query.pageSize, result.totalItems) },
    };
  },
});

registerEndpoint(exportsRunsList);
