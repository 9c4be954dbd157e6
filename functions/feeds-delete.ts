import { services } from "../shared/composition";
import { feedIdParams } from "../shared/domain/feed";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const feedsDelete = endpoint({
  name: "feeds-delete",
  method: "DELETE",
  route: "api/v1/settings/feeds/{id}",
  summary: "Delete a feed and its SFTP login",
  tag: "System settings",
  scope: "api.admin",
  params: feedIdParams,
  responses: [{ status: 204, description: "Deleted" }],
  errors: [404],
  async handle({ params }) {
    await services().feeds.deleteFeed().execute(params.id);
    return { status: 204 };
  },
});

registerEndpoint(feedsDelete);
