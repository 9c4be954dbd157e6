/**
 * Creates and completes the replica's schemas on first use (idempotent: missing schemas, tables and
 * columns are added, nothing is dropped), then the reader role and its grants: what a BI login may do
 * is decided by the database, not by a session flag.
 */
import { sql } from "kysely";
import { allTables } from "../../domain/replica/replica-tables";
import { qualified } from "../../domain/replica/table-types";
import { AGAIN, retry } from "../cosmos/retry";
import { columnSql, type ReplicaDb, type ReplicaEngine } from "./replica-sql";

export const READER_ROLE = "replica_reader";

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
  ];
}

/** The DDL that brings the database to the table definitions: what is missing, in order. */
export async function migrationStatements(db: ReplicaDb, engine: ReplicaEngine): Promise<{ sql: string }[]> {
  const schemas = new Set(
    (await db.selectFrom("information_schema.schemata").select("schema_name").execute()).map((r) =>
      String(r.schema_name).toLowerCase(),
    ),
  );
  const existing = await db
    .selectFrom("information_schema.columns")
    .select(["table_schema", "table_name", "column_name"])
    .where("table_schema", "in", ["analytics", "replica"])
    .execute();
  const columnsOf = (schema: string, table: string): Set<string> =>
    new Set(
      existing
        .filter((c) => String(c.table_schema).toLowerCase() === schema && String(c.table_name).toLowerCase() === table)
        .map((c) => String(c.column_name).toLowerCase()),
    );
  const out: { sql: string }[] = [];
  for (const schema of ["analytics", "replica"])
    if (!schemas.has(schema)) out.push(db.schema.createSchema(schema).compile());
  for (const table of allTables) {
    const present = columnsOf(table.schema, table.name);
    if (present.size === 0) {
      let create = db.schema.createTable(qualified(table));
      for (const column of table.columns)
        create = create.addColumn(column.name, columnSql(engine, column.type), (c) =>
          column.nullable ? c : c.notNull(),
        );
      out.push(
        create.addPrimaryKeyConstraint(`pk_${table.schema}_${table.name}`, [...table.primaryKey] as never).compile(),
      );
      continue;
    }
    // A column added to the definitions later arrives nullable: existing rows have no value for it.
    for (const column of table.columns.filter((c) => !present.has(c.name)))
      out.push(db.schema.alterTable(qualified(table)).addColumn(column.name, columnSql(engine, column.type)).compile());
  }
  return out;
}

/** Runs the migration and the grants. Two instances migrating at once: the loser's repeat finds it done. */
export async function migrateReplicaSchema(db: ReplicaDb, engine: ReplicaEngine, database: string): Promise<void> {
  let failure: unknown;
  await retry<void>(
    { attempts: 3, delayMs: () => 0 },
    async () => {
      try {
        for (const statement of await migrationStatements(db, engine)) await sql.raw(statement.sql).execute(db);
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
