import { z } from "zod";
import { services } from "../shared/composition";
import {
  dataQualityExceptionSchema,
  dataQualitySeveritySchema,
  dataQualityStatusSchema,
  dataQualityTypeSchema,
} from "../shared/domain/data-quality-exception";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exceptionsList = endpoint({
  name: "exceptions-list",
  method: "GET",
  route: "api/v1/exceptions",
  summary: "Data-quality exceptions, newest first; filters combine",
  tag: "Data quality",
  scope: "api.read",
  query: cursorQuery.extend({
    type: dataQualityTypeSchema.optional(),
    status: dataQualityStatusSchema.optional(),
    severity: dataQualitySeveritySchema.optional(),
  }),
  responses: [
    {
      status: 200,
      description: "A page of exceptions",
      schema: z.object({ data: z.array(dataQualityExceptionSchema), pagination: cursorPaginationSchema }),
    },
  ],
  async handle({ query }) {
    const { type, status, severity, ...paging } = query;
    const request = pageRequestOf(paging);
    const filter = { ...(type ? { type } : {}), ...(status ? { status } : {}), ...(severity ? { severity } : {}) };
    const result = await services().investments.listDataQualityExceptions().execute({ filter, page: request });
    return { status: 200, body: { data: result.items, pagination: cursorPaginationOf(request, result) } };
  },
});

registerEndpoint(exceptionsList);
