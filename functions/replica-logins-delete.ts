import { services } from "../shared/composition";
import { replicaLoginIdParams } from "../shared/domain/replica/replica-settings";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const replicaLoginsDelete = endpoint({
  name: "replica-logins-delete",
  method: "DELETE",
  route: "api/v1/settings/replica/logins/{id}",
  summary: "Delete a replica login: the database drops it and it can no longer connect",
  tag: "System settings",
  scope: "api.admin",
  params: replicaLoginIdParams,
  responses: [{ status: 204, description: "Deleted" }],
  errors: [404, 503],
  async handle({ params }) {
    await services().replica.deleteReplicaLogin().execute({ id: params.id });
    return { status: 204 };
  },
});

registerEndpoint(replicaLoginsDelete);
