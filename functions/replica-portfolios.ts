import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `portfolios` container into the SQL replica (change-feed trigger). */
export const replicaPortfolios = projectChangesOf("portfolios");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled())
  app.cosmosDB("replica-portfolios", replicaTrigger("replica-portfolios", "portfolios", replicaPortfolios));
