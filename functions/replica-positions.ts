import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `positions` container into the SQL replica (change-feed trigger). */
export const replicaPositions = projectChangesOf("positions");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled())
  app.cosmosDB("replica-positions", replicaTrigger("replica-positions", "positions", replicaPositions));
