import { z } from "zod";
import { services } from "../shared/composition";
import { blobSourceIdParams, blobSourceSchema } from "../shared/domain/blob-source";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesGet = endpoint({
  name: "blob-sources-get",
  method: "GET",
  route: "api/v1/settings/blob-sources/{id}",
  summary: "Get a blob source",
  tag: "System settings",
  scope: "api.admin",
  params: blobSourceIdParams,
  responses: [{ status: 200, description: "The blob source", schema: z.object({ data: blobSourceSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().blobSources.getBlobSource().execute(params.id) } };
  },
});

registerEndpoint(blobSourcesGet);
