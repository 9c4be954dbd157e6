import { z } from "zod";
import { services } from "../shared/composition";
import { blobSourceIdParams } from "../shared/domain/blob-source";
import { blobSourceRunSchema } from "../shared/domain/blob-source-run";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesRunNow = endpoint({
  name: "blob-sources-run-now",
  method: "POST",
  route: "api/v1/settings/blob-sources/{id}/run",
  summary:
    "Run a blob source now (also when disabled): the run is queued and answered as running; follow it with GET {id}/runs",
  tag: "System settings",
  scope: "api.admin",
  params: blobSourceIdParams,
  responses: [{ status: 202, description: "The run, started", schema: z.object({ data: blobSourceRunSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 202, body: { data: await services().blobSources.runBlobSourceNow().execute(params.id) } };
  },
});

registerEndpoint(blobSourcesRunNow);
