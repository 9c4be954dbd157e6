import { z } from "zod";
import { services } from "../shared/composition";
import { feedCreateSchema, feedWithPasswordSchema } from "../shared/domain/feed";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const feedsCreate = endpoint({
  name: "feeds-create",
  method: "POST",
  route: "api/v1/settings/feeds",
  summary:
    "Create a feed (how a provider's files are recognised, read, mapped and validated) with its SFTP login (in Azure a local user of the storage account, home inbound/<feedId>); the generated password is shown only in this response",
  tag: "System settings",
  scope: "api.admin",
  body: feedCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created, with its SFTP password",
      schema: z.object({ data: feedWithPasswordSchema }),
      headers: { Location: "URL of the new feed" },
    },
  ],
  errors: [413, 422],
  async handle({ body }) {
    const feed = await services().feeds.createFeed().execute(body);
    return {
      status: 201,
      body: { data: feed },
      headers: { Location: `/api/v1/settings/feeds/${feed.id}`, "Cache-Control": "no-store" },
    };
  },
});

registerEndpoint(feedsCreate);
