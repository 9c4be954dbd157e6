import { z } from "zod";
import { services } from "../shared/composition";
import { feedSchema } from "../shared/domain/feed";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const feedsList = endpoint({
  name: "feeds-list",
  method: "GET",
  route: "api/v1/settings/feeds",
  summary: "List feeds (SFTP passwords are never returned)",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery,
  responses: [
    {
      status: 200,
      description: "A page of feeds",
      schema: z.object({ data: z.array(feedSchema), pagination: paginationSchema }),
    },
  ],
  async handle({ query }) {
    const result = await services().feeds.listFeeds().execute(query);
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(query.page, query.pageSize, result.totalItems) },
    };
  },
});

registerEndpoint(feedsList);
