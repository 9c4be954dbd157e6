import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `positions` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaPositions = registerReplicaFunction("replica-positions", "positions");
