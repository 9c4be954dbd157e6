import { registerReplicaFunction } from "../shared/triggers/replica-trigger";

/** Projects the closed versions of the `versions` container into the SQL replica's `<table>_versions` tables (change-feed trigger; Enterprise plan only). */
export const replicaVersions = registerReplicaFunction("replica-versions", "versions");
