import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `transactions` container into the SQL replica (change-feed trigger). */
export const replicaTransactions = projectChangesOf("transactions");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled())
  app.cosmosDB("replica-transactions", replicaTrigger("replica-transactions", "transactions", replicaTransactions));
