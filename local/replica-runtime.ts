/**
 * The local runtime's part of the SQL replica: on the Enterprise plan, the PostgreSQL child process
 * (local/replica-server.ts); on another plan, as in Azure, no server (and the replica's change-feed
 * functions do not register).
 */
import type { Database } from "@azure/cosmos";
import { join } from "node:path";
import { ConfigError, type Config } from "../shared/config";
import { killStale, nextMessage, startChild, type Child } from "./children";

/** The replica server's script (compiled beside this file), as its pid file names it. */
export const replicaScript = join(__dirname, "replica-server.js");

/** Whether this runtime runs the replica's server (the Enterprise plan, on PostgreSQL). */
export const runsReplica = (config: Config): boolean =>
  config.ORGANISATION_PLAN === "enterprise" && config.REPLICA_ENGINE === "postgres";

/** What the replica needs, checked with the other settings before anything starts. */
export function checkReplicaSettings(config: Config): void {
  if (runsReplica(config) && config.REPLICA_ADMIN_PASSWORD === undefined) {
    throw new ConfigError(
      "Invalid configuration:\n  REPLICA_ADMIN_PASSWORD: is required to run the replica's PostgreSQL server (ORGANISATION_PLAN=enterprise)",
    );
  }
}

/** The replica's server as a child of the runtime, and its ready message (listened for from the start). */
export interface ReplicaServer {
  child: Child;
  ready: Promise<{ created?: boolean }>;
}

/** Starts the replica's PostgreSQL child (after stopping one a crashed run left), or nothing off the plan. */
export async function startReplicaServer(
  config: Config,
  dataDir: string,
  log: (line: string) => void,
): Promise<ReplicaServer | undefined> {
  if (!runsReplica(config)) return undefined;
  await killStale(dataDir, "replica", replicaScript);
  const child = startChild(
    dataDir,
    "replica",
    replicaScript,
    [String(config.REPLICA_PORT), join(dataDir, "replica")],
    log,
  );
  // Listened for now: a child that fails at once must not leave the runtime waiting for its message.
  const ready = nextMessage(child.process, "ready", 120_000) as Promise<{ created?: boolean }>;
  ready.catch(() => {});
  return { child, ready };
}

/**
 * Waits for the server. A new cluster is an empty replica: the replica triggers' checkpoints (from an
 * earlier cluster, deleted since) are dropped, so their change feeds start from the beginning again.
 */
export async function replicaReady(server: ReplicaServer | undefined, database: Database): Promise<void> {
  if (server === undefined) return;
  const { created } = await server.ready;
  if (created !== true) return;
  const leases = database.container("leases");
  const { resources } = await leases.items
    .query<{ id: string }>({ query: "SELECT c.id FROM c WHERE STARTSWITH(c.id, 'replica-')" })
    .fetchAll();
  for (const { id } of resources) await leases.item(id, id).delete();
}
