import { replicaSourceNames } from "../../domain/replica/projection";
import { requireEnterprise, type OrganisationPlan, type ReplicaSettings } from "../../domain/replica/replica-settings";
import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type { ReplicaSourceStats } from "../../ports/replica-source-stats";
import type { ReplicaContents, ReplicaStore } from "../../ports/replica-store";

export interface ReplicaConnection {
  engine: ReplicaSettings["engine"];
  host: string;
  port: number;
  database: string;
}

export interface GetReplicaSettingsDeps {
  plan: OrganisationPlan;
  connection: ReplicaConnection;
  store: ReplicaStore;
  sources: ReplicaSourceStats;
  clock: Clock;
  log: Logger;
}

/**
 * The replica's connection details and state: rows per table, and how far the projection has come,
 * comparing what each source container stores with what the replica has applied from it.
 */
export class GetReplicaSettings {
  constructor(private readonly deps: GetReplicaSettingsDeps) {}

  async execute(): Promise<ReplicaSettings> {
    requireEnterprise(this.deps.plan);
    const { engine, host, port, database } = this.deps.connection;
    const details = {
      engine,
      host,
      port,
      database,
      schema: "analytics",
      authentication: engine === "sqlserver" ? (["entra", "sql-login"] as const) : (["password"] as const),
    };
    let contents: ReplicaContents;
    try {
      contents = await this.deps.store.contents();
    } catch (error) {
      this.deps.log.warn("replica: the replica database cannot be read", {
        error: error instanceof Error ? error.message : String(error),
      });
      return {
        ...details,
        authentication: [...details.authentication],
        status: "unavailable",
        lagSeconds: null,
        lastProjectedAt: null,
        tables: [],
        documents: null,
      };
    }
    const now = Math.floor(this.deps.clock.now().getTime() / 1000);
    let stored = 0;
    let projected = 0;
    let backfilling = false;
    let behind = false;
    let lag = 0;
    for (const source of replicaSourceNames) {
      const stats = await this.deps.sources.stats(source);
      const applied = contents.sources[source];
      stored += stats.documents;
      projected += Math.min(applied.documents, stats.documents);
      const neverProjected = applied.documents < stats.documents;
      const newerWaiting = stats.newestTs !== null && (applied.newestTs === null || applied.newestTs < stats.newestTs);
      if (!neverProjected && !newerWaiting) continue;
      backfilling ||= neverProjected;
      behind = true;
      // How old the replica's view of this container is: its newest applied change (or, before the first, the oldest stored one).
      const since = applied.newestTs ?? stats.oldestTs ?? now;
      lag = Math.max(lag, now - since);
    }
    return {
      ...details,
      authentication: [...details.authentication],
      status: backfilling ? "backfilling" : behind ? "catching-up" : "current",
      lagSeconds: behind ? Math.max(1, lag) : 0,
      lastProjectedAt: contents.lastProjectedAt,
      tables: contents.tables,
      documents: { stored, projected },
    };
  }
}
