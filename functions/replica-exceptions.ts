import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `exceptions` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaExceptions = registerReplicaFunction("replica-exceptions", "exceptions");
