import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `prices` container into the SQL replica (change-feed trigger). */
export const replicaPrices = projectChangesOf("prices");

app.cosmosDB("replica-prices", replicaTrigger("replica-prices", "prices", replicaPrices));
