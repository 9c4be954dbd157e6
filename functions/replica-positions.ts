import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `positions` container into the SQL replica (change-feed trigger). */
export const replicaPositions = projectChangesOf("positions");

app.cosmosDB("replica-positions", replicaTrigger("replica-positions", "positions", replicaPositions));
