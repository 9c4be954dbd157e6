import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `jobs` container into the SQL replica (change-feed trigger). */
export const replicaJobs = projectChangesOf("jobs");

app.cosmosDB("replica-jobs", replicaTrigger("replica-jobs", "jobs", replicaJobs));
