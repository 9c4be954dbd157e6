import { z } from "zod";
import { services } from "../shared/composition";
import { blobSourceIdParams, blobSourcePatchSchema, blobSourceSchema } from "../shared/domain/blob-source";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesPatch = endpoint({
  name: "blob-sources-patch",
  method: "PATCH",
  route: "api/v1/settings/blob-sources/{id}",
  summary:
    "Change a blob source (given fields replace the stored ones; a new schedule or enabling recomputes nextRunAt, disabling clears it)",
  tag: "System settings",
  scope: "api.admin",
  params: blobSourceIdParams,
  body: blobSourcePatchSchema,
  responses: [{ status: 200, description: "The updated blob source", schema: z.object({ data: blobSourceSchema }) }],
  errors: [404, 413, 422],
  async handle({ params, body }) {
    return {
      status: 200,
      body: { data: await services().blobSources.updateBlobSource().execute({ id: params.id, patch: body }) },
    };
  },
});

registerEndpoint(blobSourcesPatch);
