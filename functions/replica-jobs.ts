import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects changes of the `jobs` container into the SQL replica (change-feed trigger; Enterprise plan only). */
export const replicaJobs = registerReplicaFunction("replica-jobs", "jobs");
