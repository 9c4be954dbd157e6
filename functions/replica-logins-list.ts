import { z } from "zod";
import { services } from "../shared/composition";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { replicaLoginSchema } from "../shared/domain/replica/replica-settings";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const replicaLoginsList = endpoint({
  name: "replica-logins-list",
  method: "GET",
  route: "api/v1/settings/replica/logins",
  summary: "List the SQL replica's read-only logins (passwords are never returned)",
  tag: "System settings",
  scope: "api.admin",
  query: pageQuery,
  responses: [
    {
      status: 200,
      description: "A page of logins",
      schema: z.object({ data: z.array(replicaLoginSchema), pagination: paginationSchema }),
    },
  ],
  async handle({ query }) {
    const result = await services().replica.listReplicaLogins().execute(query);
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(query.page, query.pageSize, result.totalItems) },
    };
  },
});

registerEndpoint(replicaLoginsList);
