/**
 * The read-only SQL replica's wiring: the engine's connection pool (PostgreSQL locally, Azure SQL
 * Database with the managed identity in Azure), the store, the logins and the use cases.
 */
import type { TokenCredential } from "@azure/identity";
import type { Config } from "../config";
import type { Clock } from "../ports/clock";
import type { CosmosDatabase } from "../adapters/cosmos/cosmos-client";
import { CosmosReplicaSourceStats } from "../adapters/cosmos/cosmos-replica-source-stats";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { KyselyReplicaStore } from "../adapters/replica/kysely-replica-store";
import { postgresReplica, sqlServerReplica } from "../adapters/replica/replica-connections";
import { migrateReplicaSchema } from "../adapters/replica/replica-schema";
import type { ReplicaDb } from "../adapters/replica/replica-sql";
import { SqlReplicaLogins } from "../adapters/replica/sql-replica-logins";
import { CreateReplicaLogin } from "../app/replica/create-replica-login";
import { DeleteReplicaLogin } from "../app/replica/delete-replica-login";
import { GetReplicaSettings } from "../app/replica/get-replica-settings";
import { ListReplicaLogins } from "../app/replica/list-replica-logins";
import { ProjectChanges } from "../app/replica/project-changes";
import type { ReplicaLoginDeps } from "../app/replica/replica-login-deps";
import { RotateReplicaLoginPassword } from "../app/replica/rotate-replica-login-password";
import type { ReplicaLogin } from "../domain/replica/replica-settings";
import { Logger } from "../logging";

/** What the replica takes from the composition root. */
export interface ReplicaRoot {
  config: Config;
  clock: Clock;
  credential: () => TokenCredential;
  cosmos: () => CosmosDatabase;
}

function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/** Runs `task` until it succeeds once; concurrent callers share the attempt, a failure is tried again next time. */
function once(task: () => Promise<void>): () => Promise<void> {
  let attempt: Promise<void> | undefined;
  return () =>
    (attempt ??= task().catch((error: unknown) => {
      attempt = undefined;
      throw error;
    }));
}

export class ReplicaComposition {
  constructor(private readonly root: ReplicaRoot) {}

  private readonly log = lazy(() => new Logger(this.root.config.LOG_LEVEL).with({ component: "replica" }));

  /** The engine's pool, opened on first use. */
  readonly db = lazy<ReplicaDb>(() => {
    const c = this.root.config;
    if (c.REPLICA_ENGINE === "sqlserver")
      return sqlServerReplica({
        server: c.REPLICA_HOST,
        port: c.REPLICA_PORT,
        database: c.REPLICA_DATABASE,
        credential: this.root.credential(),
      });
    if (c.REPLICA_ADMIN_PASSWORD === undefined) throw new Error("REPLICA_ENGINE=postgres needs REPLICA_ADMIN_PASSWORD");
    return postgresReplica({
      host: c.REPLICA_HOST,
      port: c.REPLICA_PORT,
      database: c.REPLICA_DATABASE,
      user: c.REPLICA_ADMIN_USER,
      password: c.REPLICA_ADMIN_PASSWORD,
    });
  });
  /** The schema, the reader role and its grants: made once per instance, before the first write or read. */
  readonly ensureSchema = lazy(() =>
    once(() => migrateReplicaSchema(this.db(), this.root.config.REPLICA_ENGINE, this.root.config.REPLICA_DATABASE)),
  );
  readonly store = lazy(
    () =>
      new KyselyReplicaStore({
        engine: this.root.config.REPLICA_ENGINE,
        db: () => Promise.resolve(this.db()),
        ensureSchema: () => this.ensureSchema()(),
        clock: this.root.clock,
      }),
  );

  readonly projectChanges = lazy(() => new ProjectChanges({ store: this.store(), log: this.log() }));
  readonly getSettings = lazy(() => {
    const c = this.root.config;
    return new GetReplicaSettings({
      plan: c.ORGANISATION_PLAN,
      connection: {
        engine: c.REPLICA_ENGINE,
        host: c.REPLICA_PUBLIC_HOST ?? c.REPLICA_HOST,
        port: c.REPLICA_PORT,
        database: c.REPLICA_DATABASE,
      },
      store: this.store(),
      sources: new CosmosReplicaSourceStats(this.root.cosmos()),
      clock: this.root.clock,
      log: this.log(),
    });
  });

  private readonly loginDeps = lazy<ReplicaLoginDeps>(() => ({
    plan: this.root.config.ORGANISATION_PLAN,
    logins: new SqlReplicaLogins(
      this.root.config.REPLICA_ENGINE,
      () => Promise.resolve(this.db()),
      () => this.ensureSchema()(),
    ),
    repository: new CosmosSettingsRepository<ReplicaLogin>(
      this.root.cosmos().container("settings"),
      "replica-login",
      "Replica login",
    ),
    clock: this.root.clock,
  }));
  readonly createLogin = lazy(() => new CreateReplicaLogin(this.loginDeps()));
  readonly listLogins = lazy(() => new ListReplicaLogins(this.loginDeps()));
  readonly rotateLoginPassword = lazy(() => new RotateReplicaLoginPassword(this.loginDeps()));
  readonly deleteLogin = lazy(() => new DeleteReplicaLogin(this.loginDeps()));
}
