import { z } from "zod";
import { services } from "../shared/composition";
import { feedIdParams, feedSchema } from "../shared/domain/feed";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const feedsGet = endpoint({
  name: "feeds-get",
  method: "GET",
  route: "api/v1/settings/feeds/{id}",
  summary: "Get a feed (its SFTP password is never returned)",
  tag: "System settings",
  scope: "api.admin",
  params: feedIdParams,
  responses: [{ status: 200, description: "The feed", schema: z.object({ data: feedSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().feeds.getFeed().execute(params.id) } };
  },
});

registerEndpoint(feedsGet);
