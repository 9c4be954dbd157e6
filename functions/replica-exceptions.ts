import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `exceptions` container into the SQL replica (change-feed trigger). */
export const replicaExceptions = projectChangesOf("exceptions");

app.cosmosDB("replica-exceptions", replicaTrigger("replica-exceptions", "exceptions", replicaExceptions));
