import { z } from "zod";
import { services } from "../shared/composition";
import { feedIdParams, feedWithPasswordSchema } from "../shared/domain/feed";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const feedsRotateCredentials = endpoint({
  name: "feeds-rotate-credentials",
  method: "POST",
  route: "api/v1/settings/feeds/{id}/rotate-credentials",
  summary: "Issue a new SFTP password for a feed (shown only in this response); the old one stops working",
  tag: "System settings",
  scope: "api.admin",
  params: feedIdParams,
  responses: [
    {
      status: 200,
      description: "The feed with its new SFTP password",
      schema: z.object({ data: feedWithPasswordSchema }),
    },
  ],
  errors: [404],
  async handle({ params }) {
    const feed = await services().feeds.rotateFeedCredentials().execute(params.id);
    return { status: 200, body: { data: feed }, headers: { "Cache-Control": "no-store" } };
  },
});

registerEndpoint(feedsRotateCredentials);
