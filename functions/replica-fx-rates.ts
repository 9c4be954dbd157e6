import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `fxRates` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaFxRates = registerReplicaFunction("replica-fx-rates", "fxRates");
