import { z } from "zod";
import { services } from "../shared/composition";
import { exportCreateSchema, exportSchema } from "../shared/domain/export";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsCreate = endpoint({
  name: "exports-create",
  method: "POST",
  route: "api/v1/settings/exports",
  summary:
    "Schedule an export of a data type, as CSV, XLSX or JSON, to an SFTP server or a blob container; answers with nextRunAt (UTC). Destination secrets are write-only",
  tag: "System settings",
  scope: "api.admin",
  body: exportCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created",
      schema: z.object({ data: exportSchema }),
      headers: { Location: "URL of the new export" },
    },
  ],
  errors: [413, 422],
  async handle({ body, principal }) {
    const created = await services()
      .exports.createExport()
      .execute(body, principal?.clientId ?? "");
    return { status: 201, body: { data: created }, headers: { Location: `/api/v1/settings/exports/${created.id}` } };
  },
});

registerEndpoint(exportsCreate);
