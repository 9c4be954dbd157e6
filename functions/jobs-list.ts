import { z } from "zod";
import { services } from "../shared/composition";
import { dataTypeSchema } from "../shared/domain/import-payload";
import { jobSchema } from "../shared/domain/job";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const jobsList = endpoint({
  name: "jobs-list",
  method: "GET",
  route: "api/v1/jobs",
  summary: "Refresh jobs, newest first",
  tag: "Jobs",
  scope: "api.read",
  query: cursorQuery.extend({
    status: z.enum(["running", "completed", "failed"]).optional(),
    dataType: dataTypeSchema.optional(),
    source: jobSchema.shape.source.optional(),
    feedId: z.string().min(1).max(100).optional(),
  }),
  responses: [
    {
      status: 200,
      description: "A page of jobs",
      schema: z.object({ data: z.array(jobSchema), pagination: cursorPaginationSchema }),
    },
  ],
  async handle({ query }) {
    const { status, dataType, source, feedId, ...paging } = query;
    const request = pageRequestOf(paging);
    const filter = {
      ...(status ? { status } : {}),
      ...(dataType ? { dataType } : {}),
      ...(source ? { source } : {}),
      ...(feedId ? { feedId } : {}),
    };
    const result = await services().investments.listJobs().execute({ filter, page: request });
    return { status: 200, body: { data: result.items, pagination: cursorPaginationOf(request, result) } };
  },
});

registerEndpoint(jobsList);
