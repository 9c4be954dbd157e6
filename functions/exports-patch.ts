import { z } from "zod";
import { services } from "../shared/composition";
import { exportIdParams, exportPatchDocSchema, exportPatchSchema, exportSchema } from "../shared/domain/export";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsPatch = endpoint({
  name: "exports-patch",
  method: "PATCH",
  route: "api/v1/settings/exports/{id}",
  summary:
    "Change an export: nested objects (schedule, destination, filters) merge into the stored ones (null removes a field), and the result is validated whole; a destination sent without its secret keeps the stored one, a changed destination type must bring everything it needs",
  tag: "System settings",
  scope: "api.admin",
  params: exportIdParams,
  body: exportPatchSchema,
  docBody: exportPatchDocSchema,
  responses: [{ status: 200, description: "The updated export", schema: z.object({ data: exportSchema }) }],
  errors: [404, 413, 422],
  async handle({ params, body, principal }) {
    return {
      status: 200,
      body: {
        data: await services()
          .exports.updateExport()
          .execute({ id: params.id, patch: body, actor: principal?.clientId ?? "" }),
      },
    };
  },
});

registerEndpoint(exportsPatch);
