import { z } from "zod";
import { services } from "../shared/composition";
import { exportPreviewRequestSchema, exportPreviewSchema } from "../shared/domain/export-preview";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsPreview = endpoint({
  name: "exports-preview",
  method: "POST",
  route: "api/v1/settings/exports/preview",
  summary:
    "The next scheduled times of an export definition and the file name each run would write (nothing is saved): what New Export previews",
  tag: "System settings",
  scope: "api.admin",
  body: exportPreviewRequestSchema,
  responses: [
    {
      status: 200,
      description: "The next runs, in UTC, with their file names",
      schema: z.object({ data: exportPreviewSchema }),
    },
  ],
  errors: [422],
  async handle({ body }) {
    return { status: 200, body: { data: await services().console.previewExportRuns().execute(body) } };
  },
});

registerEndpoint(exportsPreview);
