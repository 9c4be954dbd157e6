import { z } from "zod";
import { services } from "../shared/composition";
import { exportIdParams } from "../shared/domain/export";
import { exportRunSchema } from "../shared/domain/export-run";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsRunNow = endpoint({
  name: "exports-run-now",
  method: "POST",
  route: "api/v1/settings/exports/{id}/run",
  summary:
    "Run an export now (scheduledFor is this moment, and the naming tokens use it); the run proceeds in the background: follow it in GET {id}/runs",
  tag: "System settings",
  scope: "api.admin",
  params: exportIdParams,
  responses: [{ status: 202, description: "The run, accepted", schema: z.object({ data: exportRunSchema }) }],
  errors: [404, 409],
  async handle({ params }) {
    return { status: 202, body: { data: await services().exports.runExportNow().execute(params.id) } };
  },
});

registerEndpoint(exportsRunNow);
