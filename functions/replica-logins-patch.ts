import { z } from "zod";
import { services } from "../shared/composition";
import {
  replicaLoginIdParams,
  replicaLoginPatchSchema,
  replicaLoginSchema,
} from "../shared/domain/replica/replica-settings";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const replicaLoginsPatch = endpoint({
  name: "replica-logins-patch",
  method: "PATCH",
  route: "api/v1/settings/replica/logins/{id}",
  summary:
    "Change a replica login's connection limit or statement time limit; sessions beyond the new limits are stopped within seconds",
  tag: "System settings",
  scope: "api.admin",
  params: replicaLoginIdParams,
  body: replicaLoginPatchSchema,
  responses: [
    { status: 200, description: "The login with its limits", schema: z.object({ data: replicaLoginSchema }) },
  ],
  errors: [404, 422, 503],
  async handle({ params, body }) {
    const login = await services().replica.updateReplicaLogin().execute({ id: params.id, patch: body });
    return { status: 200, body: { data: login } };
  },
});

registerEndpoint(replicaLoginsPatch);
