import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger, replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/** Projects changes of the `jobs` container into the SQL replica (change-feed trigger). */
export const replicaJobs = projectChangesOf("jobs");

// Only on the Enterprise plan: no replica, no trigger (see replicaTriggersEnabled).
if (replicaTriggersEnabled()) app.cosmosDB("replica-jobs", replicaTrigger("replica-jobs", "jobs", replicaJobs));
