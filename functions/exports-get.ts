import { z } from "zod";
import { services } from "../shared/composition";
import { exportIdParams, exportSchema } from "../shared/domain/export";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsGet = endpoint({
  name: "exports-get",
  method: "GET",
  route: "api/v1/settings/exports/{id}",
  summary:
    "Get a scheduled export (destination secrets are never returned: hasPassword / hasPrivateKey say whether one is stored)",
  tag: "System settings",
  scope: "api.admin",
  params: exportIdParams,
  responses: [{ status: 200, description: "The export", schema: z.object({ data: exportSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().exports.getExport().execute(params.id) } };
  },
});

registerEndpoint(exportsGet);
