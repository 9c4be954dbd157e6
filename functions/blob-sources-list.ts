import { z } from "zod";
import { services } from "../shared/composition";
import { blobSourceSchema } from "../shared/domain/blob-source";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesList = endpoint({
  name: "blob-sources-list",
  method: "GET",
  route: "api/v1/settings/blob-sources",
  summary: "List blob sources",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery,
  responses: [
    {
      status: 200,
      description: "A page of blob sources",
      schema: z.object({ data: z.array(blobSourceSchema), pagination: paginationSchema }),
    },
  ],
  async handle({ query }) {
    const result = await services()
      .blobSources.listBlobSources()
      .execute({ page: query.page, pageSize: query.pageSize });
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(query.page, query.pageSize, result.totalItems) },
    };
  },
});

registerEndpoint(blobSourcesList);
