/**
 * The SQL replica's change-feed triggers: one `app.cosmosDB` function per source container, all alike.
 * In Azure the Functions host reads the feed (identity-based connection `COSMOS`, checkpoints in the
 * `leases` container); locally the local runtime's change-feed host reads the stand-in's.
 */
import { app, type CosmosDBv4LatestVersionFunctionOptions, type InvocationContext } from "@azure/functions";
import { services } from "../composition";
import { getSetting } from "../config";
import type { ReplicaSource } from "../domain/replica/projection";
import { triggersEnabled } from "./trigger-gate";

/**
 * Whether the replica's triggers exist in this app: only on the Enterprise plan. Registration itself
 * is conditional (the Functions host indexes what the worker registers), because the usual switch,
 * an `AzureWebJobs.<name>.Disabled` app setting, cannot name these functions: App Service setting
 * names take letters, digits, periods and underscores, and every function name here has a hyphen.
 */
export const replicaTriggersEnabled = (): boolean => getSetting("ORGANISATION_PLAN") === "enterprise";

/** The handler of one source container's trigger: the batch into the replica (a throw has it delivered again). */
export function projectChangesOf(
  source: ReplicaSource,
): (documents: unknown[], context: InvocationContext) => Promise<void> {
  return async (documents) => {
    await services().replica.projectChanges().execute({ source, documents });
  };
}

/** The trigger's options: what Azure's host and the local host both read. */
export function replicaTrigger(
  name: string,
  source: ReplicaSource,
  handler: (documents: unknown[], context: InvocationContext) => Promise<void>,
): CosmosDBv4LatestVersionFunctionOptions {
  return {
    connection: "COSMOS",
    databaseName: "%COSMOS_DATABASE%",
    containerName: source,
    leaseContainerName: "leases",
    // One lease container for every trigger: each keeps its own checkpoints under its name.
    leaseContainerPrefix: `${name}:`,
    // A replica turned on later (or a deployment that starts with data) projects every stored document once.
    startFromBeginning: true,
    feedPollDelay: 1000,
    maxItemsPerInvocation: 5000,
    // A failed batch (the database unreachable, a lost race) is retried, never skipped: the next
    // batch waits behind it, so nothing is lost and the order holds.
    retry: { strategy: "exponentialBackoff", maxRetryCount: -1, minimumInterval: 1000, maximumInterval: 60_000 },
    handler,
  };
}

/**
 * Registers the change-feed function of one source container (Enterprise plan only: no replica, no
 * trigger) and returns its handler.
 */
export function registerReplicaFunction(
  name: string,
  source: ReplicaSource,
): (documents: unknown[], context: InvocationContext) => Promise<void> {
  const handler = projectChangesOf(source);
  if (replicaTriggersEnabled() && triggersEnabled()) app.cosmosDB(name, replicaTrigger(name, source, handler));
  return handler;
}
