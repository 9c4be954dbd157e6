import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `securities` container into the SQL replica (change-feed trigger). */
export const replicaSecurities = projectChangesOf("securities");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled())
  app.cosmosDB("replica-securities", replicaTrigger("replica-securities", "securities", replicaSecurities));
