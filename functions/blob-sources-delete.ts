import { services } from "../shared/composition";
import { blobSourceIdParams } from "../shared/domain/blob-source";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesDelete = endpoint({
  name: "blob-sources-delete",
  method: "DELETE",
  route: "api/v1/settings/blob-sources/{id}",
  summary: "Delete a blob source (the customer's container is not touched; files already copied are still ingested)",
  tag: "System settings",
  scope: "api.admin",
  params: blobSourceIdParams,
  responses: [{ status: 204, description: "Deleted" }],
  errors: [404],
  async handle({ params }) {
    await services().blobSources.deleteBlobSource().execute(params.id);
    return { status: 204 };
  },
});

registerEndpoint(blobSourcesDelete);
