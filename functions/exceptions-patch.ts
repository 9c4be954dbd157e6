import { z } from "zod";
import { services } from "../shared/composition";
import { dataQualityExceptionSchema } from "../shared/domain/data-quality-exception";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exceptionsPatch = endpoint({
  name: "exceptions-patch",
  method: "PATCH",
  route: "api/v1/exceptions/{exceptionId}",
  summary: "Resolve a data-quality exception (resolvedBy: the caller's client id; exception.resolved is announced)",
  tag: "Data quality",
  scope: "api.write",
  params: z.object({ exceptionId: idParam(200) }),
  body: z
    .strictObject({
      status: z.literal("resolved"),
      resolution: z.string().trim().min(1).max(1000).optional().meta({ description: "Why it is resolved (optional)" }),
    })
    .meta({ id: "ExceptionPatch" }),
  responses: [
    { status: 200, description: "The resolved exception", schema: z.object({ data: dataQualityExceptionSchema }) },
  ],
  errors: [404, 409, 413],
  async handle({ params, body, principal }) {
    const resolved = await services()
      .investments.resolveDataQualityException()
      .execute(params.exceptionId, principal?.clientId ?? "", body.resolution);
    return { status: 200, body: { data: resolved } };
  },
});

registerEndpoint(exceptionsPatch);
