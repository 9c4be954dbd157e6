import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `fxRates` container into the SQL replica (change-feed trigger). */
export const replicaFxRates = projectChangesOf("fxRates");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled())
  app.cosmosDB("replica-fx-rates", replicaTrigger("replica-fx-rates", "fxRates", replicaFxRates));
