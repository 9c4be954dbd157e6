import { z } from "zod";
import { services } from "../shared/composition";
import { replicaLoginCreateSchema, replicaLoginWithPasswordSchema } from "../shared/domain/replica/replica-settings";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const replicaLoginsCreate = endpoint({
  name: "replica-logins-create",
  method: "POST",
  route: "api/v1/settings/replica/logins",
  summary:
    "Create a read-only login of the SQL replica (Enterprise plan): it can read every table of the analytics schema and nothing else (the database refuses writes, DDL and other schemas); the password is shown only in this response",
  tag: "System settings",
  scope: "api.admin",
  body: replicaLoginCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created, with its password",
      schema: z.object({ data: replicaLoginWithPasswordSchema }),
      headers: { Location: "URL of the new login" },
    },
  ],
  errors: [422, 503],
  async handle({ body }) {
    const login = await services().replica.createReplicaLogin().execute(body);
    return {
      status: 201,
      body: { data: login },
      headers: { Location: `/api/v1/settings/replica/logins/${login.id}`, "Cache-Control": "no-store" },
    };
  },
});

registerEndpoint(replicaLoginsCreate);
