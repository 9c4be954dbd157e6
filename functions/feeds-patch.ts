import { z } from "zod";
import { services } from "../shared/composition";
import { feedIdParams, feedPatchSchema, feedSchema } from "../shared/domain/feed";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const feedsPatch = endpoint({
  name: "feeds-patch",
  method: "PATCH",
  route: "api/v1/settings/feeds/{id}",
  summary:
    "Change any field of a feed but its id (given fields replace the stored ones whole; the result is validated as a whole), or set sftp.publicKeys (OpenSSH format) for key login; a feed going from paused to testing or live has the files waiting in its inbox ingested",
  tag: "System settings",
  scope: "api.admin",
  params: feedIdParams,
  body: feedPatchSchema,
  responses: [{ status: 200, description: "The updated feed", schema: z.object({ data: feedSchema }) }],
  errors: [404, 413, 422],
  async handle({ params, body }) {
    return { status: 200, body: { data: await services().feeds.updateFeed().execute({ id: params.id, patch: body }) } };
  },
});

registerEndpoint(feedsPatch);
