import { app } from "@azure/functions";
import { projectChangesOf, replicaTrigger } from "../shared/triggers/replica-trigger";

/** Projects changes of the `portfolios` container into the SQL replica (change-feed trigger). */
export const replicaPortfolios = projectChangesOf("portfolios");

app.cosmosDB("replica-portfolios", replicaTrigger("replica-portfolios", "portfolios", replicaPortfolios));
