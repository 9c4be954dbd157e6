import { z } from "zod";
import { services } from "../shared/composition";
import { blobSourceCreateSchema, blobSourceSchema } from "../shared/domain/blob-source";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesCreate = endpoint({
  name: "blob-sources-create",
  method: "POST",
  route: "api/v1/settings/blob-sources",
  summary:
    "Create a blob source: a customer's container, read on a schedule with the service's managed identity, whose new blobs become files of a feed",
  tag: "System settings",
  scope: "api.admin",
  body: blobSourceCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created, with its nextRunAt",
      schema: z.object({ data: blobSourceSchema }),
      headers: { Location: "URL of the new blob source" },
    },
  ],
  errors: [413, 422],
  async handle({ body }) {
    const source = await services().blobSources.createBlobSource().execute(body);
    return { status: 201, body: { data: source }, headers: { Location: `/api/v1/settings/blob-sources/${source.id}` } };
  },
});

registerEndpoint(blobSourcesCreate);
