/**
 * The read-only SQL replica's wiring: the engine's connection pool (PostgreSQL locally, Azure SQL
 * Database with the managed identity in Azure), the store, the logins and the use cases.
 */
import { CosmosReplicaSourceStats } from "../adapters/cosmos/cosmos-replica-source-stats";
import { CosmosSettingsRepository } from "../adapters/cosmos/cosmos-settings-repository";
import { KyselyReplicaStore } from "../adapters/replica/kysely-replica-store";
import { postgresReplica, sqlServerReplica } from "../adapters/replica/replica-connections";
import { migrateReplicaSchema } from "../adapters/replica/replica-schema";
import type { ReplicaDb } from "../adapters/replica/replica-sql";
import { SqlReplicaLogins } from "../adapters/replica/sql-replica-logins";
import { CreateReplicaLogin } from "../app/replica/create-replica-login";
import { DeleteReplicaLogin } from "../app/replica/delete-replica-login";
import { EnforceReplicaLoginLimits } from "../app/replica/enforce-replica-login-limits";
import { GetReplicaSettings } from "../app/replica/get-replica-settings";
import { ListReplicaLogins } from "../app/replica/list-replica-logins";
import { ProjectChanges } from "../app/replica/project-changes";
import type { ReplicaLoginDeps } from "../app/replica/replica-login-deps";
import { RotateReplicaLoginPassword } from "../app/replica/rotate-replica-login-password";
import { UpdateReplicaLogin } from "../app/replica/update-replica-login";
import type { ReplicaLogin } from "../domain/replica/replica-settings";
import { replicaLoginAudit } from "../domain/settings-audit-subjects";
import type { CoreServices } from "./core";
import type { InvestmentServices } from "./investments";
import { lazy, onceUntilSuccess } from "./lazy";

/** The SQL replica (Enterprise plan): projection of the change feed, the settings answer, the logins. */
export class ReplicaServices {
  constructor(
    private readonly core: CoreServices,
    private readonly investments: InvestmentServices,
  ) {}

  private readonly log = lazy(() => this.core.logger("replica"));

  /** The engine's pool: nothing connects until the first statement. */
  readonly replicaDb = lazy<ReplicaDb>(() => {
    const c = this.core.config;
    if (c.REPLICA_ENGINE === "sqlserver")
      return sqlServerReplica({
        server: c.REPLICA_HOST,
        port: c.REPLICA_PORT,
        database: c.REPLICA_DATABASE,
        credential: this.core.credential(),
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
    onceUntilSuccess(() =>
      migrateReplicaSchema(this.replicaDb(), this.core.config.REPLICA_ENGINE, this.core.config.REPLICA_DATABASE),
    ),
  );
  readonly replicaStore = lazy(
    () =>
      new KyselyReplicaStore({
        engine: this.core.config.REPLICA_ENGINE,
        db: () => Promise.resolve(this.replicaDb()),
        ensureSchema: () => this.ensureSchema()(),
        clock: this.core.clock,
      }),
  );

  readonly projectChanges = lazy(
    () =>
      new ProjectChanges({
        store: this.replicaStore(),
        log: this.log(),
        exceptions: this.investments.dataQualityExceptions(),
      }),
  );
  readonly getReplicaSettings = lazy(() => {
    const c = this.core.config;
    return new GetReplicaSettings({
      plan: c.ORGANISATION_PLAN,
      connection: {
        engine: c.REPLICA_ENGINE,
        host: c.REPLICA_PUBLIC_HOST ?? c.REPLICA_HOST,
        port: c.REPLICA_PORT,
        database: c.REPLICA_DATABASE,
      },
      store: this.replicaStore(),
      sources: new CosmosReplicaSourceStats(this.core.cosmos()),
      clock: this.core.clock,
      log: this.log(),
    });
  });

  private readonly loginDeps = lazy<ReplicaLoginDeps>(() => ({
    plan: this.core.config.ORGANISATION_PLAN,
    logins: new SqlReplicaLogins(
      this.core.config.REPLICA_ENGINE,
      () => Promise.resolve(this.replicaDb()),
      () => this.ensureSchema()(),
    ),
    repository: new CosmosSettingsRepository<ReplicaLogin>(
      this.core.cosmos().container("settings"),
      "replica-login",
      "Replica login",
      { writer: this.core.settingsAudit(), subject: replicaLoginAudit },
    ),
    clock: this.core.clock,
  }));
  readonly createReplicaLogin = lazy(() => new CreateReplicaLogin(this.loginDeps()));
  readonly listReplicaLogins = lazy(() => new ListReplicaLogins(this.loginDeps()));
  readonly rotateReplicaLoginPassword = lazy(() => new RotateReplicaLoginPassword(this.loginDeps()));
  readonly deleteReplicaLogin = lazy(() => new DeleteReplicaLogin(this.loginDeps()));
  readonly updateReplicaLogin = lazy(() => new UpdateReplicaLogin(this.loginDeps()));
  readonly enforceReplicaLoginLimits = lazy(
    () => new EnforceReplicaLoginLimits({ logins: this.loginDeps().logins, log: this.log() }),
  );
}
