import { z } from "zod";
import { services } from "../shared/composition";
import { MAX_BULK_RESOLVE } from "../shared/app/investments/resolve-data-quality-exceptions";
import { dataQualityExceptionSchema } from "../shared/domain/data-quality-exception";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exceptionsResolve = endpoint({
  name: "exceptions-resolve",
  method: "POST",
  route: "api/v1/exceptions/resolve",
  summary:
    "Resolve several data-quality exceptions at once (each as PATCH /api/v1/exceptions/{id} does: resolvedBy, the note, an exception.resolved event each)",
  tag: "Data quality",
  scope: "api.write",
  body: z
    .strictObject({
      ids: z
        .array(idParam(200))
        .min(1)
        .max(MAX_BULK_RESOLVE)
        .meta({ description: `The exceptions to resolve (1-${MAX_BULK_RESOLVE})` }),
      resolution: z
        .string()
        .trim()
        .min(1)
        .max(1000)
        .optional()
        .meta({ description: "Why they are resolved (optional)" }),
    })
    .meta({ id: "ExceptionBulkResolve" }),
  responses: [
    {
      status: 200,
      description: "What became of each id: resolved now, not found, or resolved already (left as it was)",
      schema: z.object({
        data: z.object({
          resolved: z.array(dataQualityExceptionSchema),
          notFound: z.array(z.string()),
          alreadyResolved: z.array(z.string()),
        }),
      }),
    },
  ],
  errors: [409, 413],
  async handle({ body, principal }) {
    const data = await services()
      .investments.resolveDataQualityExceptions()
      .execute(body.ids, principal?.clientId ?? "", body.resolution);
    return { status: 200, body: { data } };
  },
});

registerEndpoint(exceptionsResolve);
