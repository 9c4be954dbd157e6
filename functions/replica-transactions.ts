import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `transactions` container into the SQL replica (change-feed trigger). */
export const replicaTransactions = projectChangesOf("transactions");

app.cosmosDB("replica-transactions", replicaTrigger("replica-transactions", "transactions", replicaTransactions));
