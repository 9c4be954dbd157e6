import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `securities` container into the SQL replica (change-feed trigger). */
export const replicaSecurities = projectChangesOf("securities");

app.cosmosDB("replica-securities", replicaTrigger("replica-securities", "securities", replicaSecurities));
