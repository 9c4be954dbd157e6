/**
 * The DDL that brings a replica database (empty, or made by an earlier version) to the definitions:
 * computed from its catalogue (replica-catalog.ts), so that only what differs is run. Additive: missing
 * schemas, tables, columns, keys, views and descriptions are added; a column whose type changed (a
 * decimal's places, a longer text) is altered; nothing is dropped but the views and functions, which
 * are created again when their definition changed.
 */
import { analyticsViews } from "../../domain/replica/analytics-views";
import { allTables } from "../../domain/replica/replica-tables";
import { qualified, type ColumnDefinition, type TableDefinition } from "../../domain/replica/table-types";
import type { Catalog, CatalogColumn } from "./replica-catalog";
import { describe, descriptionKey, expectedDescriptions } from "./replica-descriptions";
import { columnSql, columnTypeText, type ReplicaDb, type ReplicaEngine } from "./replica-sql";
import { createObject, definitionHash, dropObject } from "./replica-views";

const q = (name: string): string => `"${name}"`;
const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Whether a column's stored type must change to the definition's: a decimal's precision or places, a text's greater length. */
function changed(column: ColumnDefinition, stored: CatalogColumn): boolean {
  const type = column.type;
  if (type.kind === "decimal") return stored.precision !== type.precision || stored.scale !== type.scale;
  if (type.kind === "text") return stored.length !== null && stored.length > 0 && stored.length < type.length;
  return false;
}

function alterType(engine: ReplicaEngine, table: TableDefinition, column: ColumnDefinition): string {
  const type = columnTypeText(engine, column.type);
  // PostgreSQL rounds each value to the new places (rewriting the table); SQL Server converts the same way.
  return engine === "postgres"
    ? `ALTER TABLE ${q(table.schema)}.${q(table.name)} ALTER COLUMN ${q(column.name)} TYPE ${type}`
    : `ALTER TABLE ${q(table.schema)}.${q(table.name)} ALTER COLUMN ${q(column.name)} ${type} ${column.nullable ? "NULL" : "NOT NULL"}`;
}

/**
 * Foreign keys are declared for BI tools (Power BI, Tableau join tables by them) but not enforced: the
 * replica is fed in change-feed order per container, so a holding may arrive before its security.
 * PostgreSQL 18 has NOT ENFORCED; SQL Server adds it unchecked and disables it (NOCHECK CONSTRAINT).
 */
export const foreignKeyName = (table: TableDefinition, columns: readonly string[]): string =>
  `fk_${table.name}_${columns.join("_")}`;

function addForeignKeys(engine: ReplicaEngine, table: TableDefinition, present: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const fk of table.foreignKeys ?? []) {
    const name = foreignKeyName(table, fk.columns);
    if (present.has(name)) continue;
    const ref = `${q(table.schema)}.${q(fk.references.table)} (${fk.references.columns.map(q).join(", ")})`;
    const key = `CONSTRAINT ${q(name)} FOREIGN KEY (${fk.columns.map(q).join(", ")}) REFERENCES ${ref}`;
    const target = `${q(table.schema)}.${q(table.name)}`;
    if (engine === "postgres") out.push(`ALTER TABLE ${target} ADD ${key} NOT ENFORCED`);
    else
      out.push(`ALTER TABLE ${target} WITH NOCHECK ADD ${key}`, `ALTER TABLE ${target} NOCHECK CONSTRAINT ${q(name)}`);
  }
  return out;
}

/** The statements, in order; none when the database is as the definitions say. */
export function migrationPlan(db: ReplicaDb, engine: ReplicaEngine, catalog: Catalog): string[] {
  const out: string[] = [];
  for (const schema of ["analytics", "replica"])
    if (!catalog.schemas.has(schema)) out.push(db.schema.createSchema(schema).compile().sql);
  const tables: string[] = [];
  let altered = false;
  for (const table of allTables) {
    const present = catalog.columns.get(qualified(table));
    if (present === undefined) {
      let create = db.schema.createTable(qualified(table));
      for (const column of table.columns)
        create = create.addColumn(column.name, columnSql(engine, column.type), (c) =>
          column.nullable ? c : c.notNull(),
        );
      tables.push(
        create.addPrimaryKeyConstraint(`pk_${table.schema}_${table.name}`, [...table.primaryKey] as never).compile()
          .sql,
      );
      continue;
    }
    for (const column of table.columns) {
      const stored = present.get(column.name);
      // A column added to the definitions later arrives nullable: existing rows have no value for it.
      if (stored === undefined)
        tables.push(
          db.schema.alterTable(qualified(table)).addColumn(column.name, columnSql(engine, column.type)).compile().sql,
        );
      // Key columns keep their type (a primary key would have to be rebuilt).
      else if (!table.primaryKey.includes(column.name) && changed(column, stored)) {
        tables.push(alterType(engine, table, column));
        altered = true;
      }
    }
  }
  const stale = analyticsViews.filter(
    (v) => altered || !catalog.objects.has(v.name) || catalog.definitions.get(v.name) !== definitionHash(engine, v),
  );
  // A view's columns hold their tables' types: it goes before they change, and comes back after.
  for (const v of [...stale].reverse()) if (catalog.objects.has(v.name) || altered) out.push(dropObject(engine, v));
  out.push(...tables);
  for (const table of allTables)
    if (table.schema === "analytics") out.push(...addForeignKeys(engine, table, catalog.foreignKeys));
  for (const v of stale)
    out.push(
      createObject(engine, v),
      `DELETE FROM "replica"."schema_objects" WHERE "name" = ${literal(v.name)}`,
      `INSERT INTO "replica"."schema_objects" ("name", "definition") VALUES (${literal(v.name)}, ${literal(definitionHash(engine, v))})`,
    );
  const recreated = new Set(stale.map((v) => v.name));
  for (const d of expectedDescriptions()) {
    // A view or function created again has lost its descriptions (they go with the dropped object).
    const current = recreated.has(d.object) ? undefined : catalog.descriptions.get(descriptionKey(d));
    if (current !== d.text) out.push(describe(engine, d, current !== undefined));
  }
  return out;
}
