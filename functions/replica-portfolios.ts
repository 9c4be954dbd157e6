import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `portfolios` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaPortfolios = registerReplicaFunction("replica-portfolios", "portfolios");
