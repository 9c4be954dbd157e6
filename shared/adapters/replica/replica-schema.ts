/**
 * Creates and completes the replica's schemas on first use (replica-migration.ts: what the catalogue
 * lacks), then the reader role and its grants: what a BI login may do is decided by the database, not
 * by a session flag.
 */
import { sql } from "kysely";
import { biTables } from "../../domain/replica/versions-tables";
import { AGAIN, retry } from "../cosmos/retry";
import { readCatalog } from "./replica-catalog";
import { migrationPlan } from "./replica-migration";
import type { ReplicaDb, ReplicaEngine } from "./replica-sql";

export const READER_ROLE = "replica_reader";

/**
 * PostgreSQL functions that PUBLIC may execute and that let a "read-only" login write or hold what
 * others need: large objects (`lo_from_bytea` stores unbounded data), WAL records
 * (`pg_logical_emit_message`), advisory locks (the shared lock table), `pg_notify` (the notification
 * queue), transaction ids. The `NOTIFY` statement is not a function and cannot be revoked; its queue
 * only grows while a listener sits in an open transaction, which the login watchdog ends.
 */
export const REVOKED_FUNCTIONS = [
  "lo_creat",
  "lo_create",
  "lo_from_bytea",
  "lo_import",
  "lo_export",
  "lo_open",
  "lo_close",
  "lo_put",
  "lo_get",
  "loread",
  "lowrite",
  "lo_lseek",
  "lo_lseek64",
  "lo_tell",
  "lo_tell64",
  "lo_truncate",
  "lo_truncate64",
  "lo_unlink",
  "pg_advisory_lock",
  "pg_advisory_lock_shared",
  "pg_advisory_xact_lock",
  "pg_advisory_xact_lock_shared",
  "pg_try_advisory_lock",
  "pg_try_advisory_lock_shared",
  "pg_try_advisory_xact_lock",
  "pg_try_advisory_xact_lock_shared",
  "pg_advisory_unlock",
  "pg_advisory_unlock_shared",
  "pg_advisory_unlock_all",
  "pg_notify",
  "pg_logical_emit_message",
  "txid_current",
  "pg_current_xact_id",
] as const;

/** Statements that make `replica_reader` able to read `analytics` and nothing else (safe to repeat). */
export function readerGrants(engine: ReplicaEngine, database: string): string[] {
  if (engine === "sqlserver") {
    return [
      `IF DATABASE_PRINCIPAL_ID(N'${READER_ROLE}') IS NULL CREATE ROLE ${READER_ROLE}`,
      `GRANT SELECT ON SCHEMA::analytics TO ${READER_ROLE}`,
      // DENY wins over any grant a reader might get from another role.
      `DENY INSERT, UPDATE, DELETE, ALTER, EXECUTE ON SCHEMA::analytics TO ${READER_ROLE}`,
      `DENY SELECT, INSERT, UPDATE, DELETE, ALTER, EXECUTE ON SCHEMA::replica TO ${READER_ROLE}`,
    ];
  }
  const db = `"${database.replace(/"/g, '""')}"`;
  return [
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${READER_ROLE}') THEN CREATE ROLE ${READER_ROLE} NOLOGIN; END IF; END $$`,
    // No CREATE (schemas) or TEMPORARY (temp tables) in the database for anyone but the owner.
    `REVOKE ALL ON DATABASE ${db} FROM PUBLIC`,
    `GRANT CONNECT ON DATABASE ${db} TO ${READER_ROLE}`,
    `REVOKE ALL ON SCHEMA public FROM PUBLIC`,
    `REVOKE ALL ON SCHEMA replica FROM PUBLIC`,
    `GRANT USAGE ON SCHEMA analytics TO ${READER_ROLE}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO ${READER_ROLE}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA analytics GRANT SELECT ON TABLES TO ${READER_ROLE}`,
    // information_schema shows keys only to a role with a privilege beyond SELECT; REFERENCES lets a
    // role reference the table from a table of its own, and a reader can create none.
    `GRANT REFERENCES ON ${biTables.map((t) => `analytics.${t.name}`).join(", ")} TO ${READER_ROLE}`,
    // Built-in functions every role may call that write or hold shared resources; superusers (the app) keep them.
    `DO $$ DECLARE f regprocedure; BEGIN FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY (ARRAY[${REVOKED_FUNCTIONS.map((f) => `'${f}'`).join(", ")}]) LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP; END $$`,
  ];
}

/** Runs the migration and the grants. Two instances migrating at once: the loser's repeat finds it done. */
export async function migrateReplicaSchema(db: ReplicaDb, engine: ReplicaEngine, database: string): Promise<void> {
  let failure: unknown;
  await retry<void>(
    { attempts: 3, delayMs: () => 0 },
    async () => {
      try {
        for (const statement of migrationPlan(db, engine, await readCatalog(db, engine)))
          await sql.raw(statement).execute(db);
        for (const grant of readerGrants(engine, database)) await sql.raw(grant).execute(db);
      } catch (error) {
        failure = error;
        return AGAIN;
      }
    },
    () => {
      throw failure;
    },
  );
}
