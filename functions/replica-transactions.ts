import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `transactions` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaTransactions = registerReplicaFunction("replica-transactions", "transactions");
