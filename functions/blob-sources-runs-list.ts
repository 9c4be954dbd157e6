import { z } from "zod";
import { services } from "../shared/composition";
import { blobSourceIdParams } from "../shared/domain/blob-source";
import { blobSourceRunSchema } from "../shared/domain/blob-source-run";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesRunsList = endpoint({
  name: "blob-sources-runs-list",
  method: "GET",
  route: "api/v1/settings/blob-sources/{id}/runs",
  summary: "A blob source's runs, newest first",
  tag: "System settings",
  scope: "api.admin",
  params: blobSourceIdParams,
  query: cursorQuery,
  responses: [
    {
      status: 200,
      description: "A page of runs",
      schema: z.object({ data: z.array(blobSourceRunSchema), pagination: cursorPaginationSchema }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const request = pageRequestOf(query);
    const result = await services().blobSources.listBlobSourceRuns().execute({ id: params.id, request });
    return { status: 200, body: { data: result.items, pagination: cursorPaginationOf(request, result) } };
  },
});

registerEndpoint(blobSourcesRunsList);
