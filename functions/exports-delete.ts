import { services } from "../shared/composition";
import { exportIdParams } from "../shared/domain/export";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsDelete = endpoint({
  name: "exports-delete",
  method: "DELETE",
  route: "api/v1/settings/exports/{id}",
  summary: "Delete a scheduled export; a run in progress is cancelled (recorded failed, nothing delivered)",
  tag: "System settings",
  scope: "api.admin",
  params: exportIdParams,
  responses: [{ status: 204, description: "Deleted" }],
  errors: [404],
  async handle({ params }) {
    await services().exports.deleteExport().execute(params.id);
    return { status: 204 };
  },
});

registerEndpoint(exportsDelete);
