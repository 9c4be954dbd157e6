import { z } from "zod";
import { services } from "../shared/composition";
import {
  dataTypes,
  importBodySchema,
  importResultSchema,
  MAX_IMPORT_BYTES,
  dataTypeSchema,
} from "../shared/domain/import-payload";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const importPost = endpoint({
  name: "import-post",
  method: "POST",
  route: "api/v1/import/{dataType}",
  summary:
    "Import positions, transactions, prices, fx-rates or securities (all-or-nothing validation, idempotent upserts)",
  tag: "Import",
  scope: "api.write",
  params: z.object({ dataType: dataTypeSchema }),
  // The outline only: records are validated one by one so each problem names its exact field.
  body: z.record(z.string(), z.unknown()),
  docBody: z.union(dataTypes.map((t) => importBodySchema(t))),
  // The same route, once per data type with its own body: a typed client cannot send prices to the positions import.
  docVariants: dataTypes.map((t) => ({
    route: `api/v1/import/${t}`,
    operationId: `import-${t}`,
    summary: `Import ${t} (all-or-nothing validation, idempotent upserts); the same as /api/v1/import/{dataType} with dataType ${t}`,
    body: importBodySchema(t),
  })),
  maxBodyBytes: MAX_IMPORT_BYTES,
  docHeaders: z.object({
    "Idempotency-Key": z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,255}$/)
      .optional()
      .meta({
        description:
          "Same key and body within 24 h replay the stored response; another body is 422; while the first runs, 409",
      }),
  }),
  responses: [
    {
      status: 200,
      description: "Imported; counts of records created, updated and unchanged, and the refresh job",
      schema: z.object({ data: importResultSchema }),
      headers: {
        "Idempotent-Replayed":
          "true when this is the stored response of an earlier request with the same Idempotency-Key",
      },
    },
  ],
  errors: [409, 413],
  async handle({ params, body, rawBody, principal, request, requestId }) {
    const svc = services();
    const result = await svc.access
      .idempotency()
      .run(
        `${principal?.clientId ?? ""}|import|${params.dataType}`,
        request.headers.get("idempotency-key"),
        rawBody ?? "",
        async () => ({
          status: 200,
          body: { data: await svc.investments.importRecords().execute({ dataType: params.dataType, body }) },
        }),
      );
    const responseBody = result.status >= 400 ? withRequestId(result.body, requestId) : result.body;
    const headers: Record<string, string> = result.replayed ? { "Idempotent-Replayed": "true" } : {};
    return { status: result.status, body: responseBody, headers };
  },
});

/** A replayed error carries this request's id, not the first one's. */
function withRequestId(body: unknown, requestId: string): unknown {
  const error = (body as { error?: object }).error;
  return error === undefined ? body : { error: { ...error, requestId } };
}

registerEndpoint(importPost);
