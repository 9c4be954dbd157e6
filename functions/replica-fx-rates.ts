import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `fxRates` container into the SQL replica (change-feed trigger). */
export const replicaFxRates = projectChangesOf("fxRates");

app.cosmosDB("replica-fx-rates", replicaTrigger("replica-fx-rates", "fxRates", replicaFxRates));
