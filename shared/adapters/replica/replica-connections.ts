/**
 * The replica's connection pools as Kysely instances: PostgreSQL through `pg` (local), Azure SQL
 * Database through `tedious` with a token from the managed identity (Azure). Drivers load only for
 * the engine in use.
 */
import type { TokenCredential } from "@azure/identity";
import { Kysely, MssqlDialect, PostgresDialect } from "kysely";
import type * as Pg from "pg";
import type * as Tarn from "tarn";
import type * as Tedious from "tedious";
import type { ReplicaDatabase, ReplicaDb } from "./replica-sql";

export interface PostgresReplicaOptions {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

/** PostgreSQL (the local runtime's server). Dates come back as `YYYY-MM-DD` text, not a local-midnight Date. */
export function postgresReplica(options: PostgresReplicaOptions, maxConnections = 4): ReplicaDb {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when this engine is used
  const pg = require("pg") as typeof Pg;
  const DATE_OID = 1082;
  const parsers = pg.types;
  const types: Pg.CustomTypesConfig = {
    getTypeParser: ((oid: number, format?: "text" | "binary") => {
      if (oid === DATE_OID) return (value: string) => value;
      return parsers.getTypeParser(oid, format ?? "text") as (value: string) => unknown;
    }) as Pg.CustomTypesConfig["getTypeParser"],
  };
  const pool = new pg.Pool({
    ...options,
    max: maxConnections,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types,
  });
  // An idle connection the server closed (a restart) must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return new Kysely<ReplicaDatabase>({ dialect: new PostgresDialect({ pool }) });
}

export interface SqlServerReplicaOptions {
  server: string;
  port: number;
  database: string;
  credential: TokenCredential;
}

/** Azure SQL Database over TLS, signed in as the function app's managed identity (an Entra token, no password). */
export function sqlServerReplica(options: SqlServerReplicaOptions, maxConnections = 4): ReplicaDb {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when this engine is used
  const tedious = require("tedious") as typeof Tedious;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tarn = require("tarn") as typeof Tarn;
  return new Kysely<ReplicaDatabase>({
    dialect: new MssqlDialect({
      tarn: { ...tarn, options: { min: 0, max: maxConnections } },
      tedious: {
        ...tedious,
        connectionFactory: () =>
          new tedious.Connection({
            server: options.server,
            authentication: { type: "token-credential", options: { credential: options.credential } },
            options: {
              port: options.port,
              database: options.database,
              encrypt: true,
              trustServerCertificate: false,
              connectTimeout: 15_000,
              requestTimeout: 120_000,
            },
          }),
      },
    }),
  });
}
