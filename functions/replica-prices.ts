import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `prices` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaPrices = registerReplicaFunction("replica-prices", "prices");
