import { z } from "zod";
import { services } from "../shared/composition";
import { replicaLoginIdParams, replicaLoginWithPasswordSchema } from "../shared/domain/replica/replica-settings";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const replicaLoginsRotatePassword = endpoint({
  name: "replica-logins-rotate-password",
  method: "POST",
  route: "api/v1/settings/replica/logins/{id}/rotate-password",
  summary: "Issue a new password for a replica login (shown only in this response); the old one stops working",
  tag: "System settings",
  scope: "api.admin",
  params: replicaLoginIdParams,
  responses: [
    {
      status: 200,
      description: "The login with its new password",
      schema: z.object({ data: replicaLoginWithPasswordSchema }),
    },
  ],
  errors: [404, 503],
  async handle({ params }) {
    const login = await services().replica.rotateReplicaLoginPassword().execute({ id: params.id });
    return { status: 200, body: { data: login }, headers: { "Cache-Control": "no-store" } };
  },
});

registerEndpoint(replicaLoginsRotatePassword);
