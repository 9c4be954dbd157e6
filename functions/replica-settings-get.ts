import { z } from "zod";
import { services } from "../shared/composition";
import { replicaSettingsSchema } from "../shared/domain/replica/replica-settings";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const replicaSettingsGet = endpoint({
  name: "replica-settings-get",
  method: "GET",
  route: "api/v1/settings/replica",
  summary:
    "Connection details of the read-only SQL replica (Enterprise plan) with its state: status, lag, last projection, rows per table and backfill progress. In Azure it speaks SQL Server's protocol (Azure SQL Database, port 1433), locally PostgreSQL's",
  tag: "System settings",
  scope: "api.admin",
  responses: [{ status: 200, description: "The replica", schema: z.object({ data: replicaSettingsSchema }) }],
  async handle() {
    return { status: 200, body: { data: await services().replica.getReplicaSettings().execute() } };
  },
});

registerEndpoint(replicaSettingsGet);
