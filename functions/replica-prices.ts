import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `prices` container into the SQL replica (change-feed trigger). */
export const replicaPrices = projectChangesOf("prices");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled()) app.cosmosDB("replica-prices", replicaTrigger("replica-prices", "prices", replicaPrices));
