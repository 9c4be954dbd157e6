import { z } from "zod";
import { services } from "../shared/composition";
import { dataQualityExceptionSchema } from "../shared/domain/data-quality-exception";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

const exceptionIdParams = z.object({ exceptionId: idParam(200) });

export const exceptionsGet = endpoint({
  name: "exceptions-get",
  method: "GET",
  route: "api/v1/exceptions/{exceptionId}",
  summary: "One data-quality exception",
  tag: "Data quality",
  scope: "api.read",
  params: exceptionIdParams,
  responses: [{ status: 200, description: "The exception", schema: z.object({ data: dataQualityExceptionSchema }) }],
  errors: [404],
  async handle({ params }) {
    return {
      status: 200,
      body: { data: await services().investments.getDataQualityException().execute(params.exceptionId) },
    };
  },
});

registerEndpoint(exceptionsGet);
