import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `exceptions` container into the SQL replica (change-feed trigger). */
export const replicaExceptions = projectChangesOf("exceptions");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled())
  app.cosmosDB("replica-exceptions", replicaTrigger("replica-exceptions", "exceptions", replicaExceptions));
