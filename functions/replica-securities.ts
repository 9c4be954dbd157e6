import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `securities` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaSecurities = registerReplicaFunction("replica-securities", "securities");
