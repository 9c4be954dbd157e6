/**
 * What the replica database has now, read from its catalogue: the input of the migration plan
 * (replica-migration.ts), which compares it with the definitions. Read as the app's own user, who owns
 * (PostgreSQL: is superuser over) every object it reads about.
 */
import { sql } from "kysely";
import type { ReplicaDb, ReplicaEngine } from "./replica-sql";

export interface CatalogColumn {
  dataType: string;
  precision: number | null;
  scale: number | null;
  length: number | null;
}

export interface Catalog {
  schemas: ReadonlySet<string>;
  /** `schema.table` → column → its type; tables and views alike. */
  columns: ReadonlyMap<string, ReadonlyMap<string, CatalogColumn>>;
  /** Foreign key constraint names in `analytics`. */
  foreignKeys: ReadonlySet<string>;
  /** Views and functions in `analytics`. */
  objects: ReadonlySet<string>;
  /** `replica.schema_objects`: each view's and function's definition hash as last created. */
  definitions: ReadonlyMap<string, string>;
  /** Descriptions in `analytics`: `object` or `object.column` → text. */
  descriptions: ReadonlyMap<string, string>;
}

export const emptyCatalog: Catalog = {
  schemas: new Set(),
  columns: new Map(),
  foreignKeys: new Set(),
  objects: new Set(),
  definitions: new Map(),
  descriptions: new Map(),
};

type Row = Record<string, unknown>;
const lower = (v: unknown): string => String(v).toLowerCase();
const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Descriptions of tables, views, their columns and functions in `analytics`, as `object`/`column`/`description` rows. */
export function descriptionsQuery(engine: ReplicaEngine) {
  if (engine === "sqlserver")
    return sql<Row>`SELECT o.name AS object, c.name AS column_name, CAST(ep.value AS nvarchar(4000)) AS description
      FROM sys.extended_properties ep
      JOIN sys.objects o ON o.object_id = ep.major_id
      LEFT JOIN sys.columns c ON c.object_id = ep.major_id AND c.column_id = ep.minor_id
      WHERE ep.class = 1 AND ep.name = N'MS_Description' AND o.schema_id = SCHEMA_ID(N'analytics')`;
  return sql<Row>`SELECT c.relname AS object, NULL AS column_name, obj_description(c.oid, 'pg_class') AS description
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'analytics' AND c.relkind IN ('r', 'v')
    UNION ALL
    SELECT c.relname, a.attname, col_description(c.oid, a.attnum)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = 'analytics' AND c.relkind IN ('r', 'v')
    UNION ALL
    SELECT p.proname, NULL, obj_description(p.oid, 'pg_proc')
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'analytics'`;
}

/** The catalogue as the migration plan needs it (a handful of queries). */
export async function readCatalog(db: ReplicaDb, engine: ReplicaEngine): Promise<Catalog> {
  const schemas = new Set(
    (await db.selectFrom("information_schema.schemata").select("schema_name as schema_name").execute()).map((r) =>
      lower(r.schema_name),
    ),
  );
  const columns = new Map<string, Map<string, CatalogColumn>>();
  for (const c of await db
    .selectFrom("information_schema.columns")
    .select([
      "table_schema as table_schema",
      "table_name as table_name",
      "column_name as column_name",
      "data_type as data_type",
      "numeric_precision as numeric_precision",
      "numeric_scale as numeric_scale",
      "character_maximum_length as character_maximum_length",
    ])
    .where("table_schema", "in", ["analytics", "replica"])
    .execute()) {
    const table = `${lower(c.table_schema)}.${lower(c.table_name)}`;
    const of = columns.get(table) ?? new Map<string, CatalogColumn>();
    of.set(lower(c.column_name), {
      dataType: lower(c.data_type),
      precision: numberOrNull(c.numeric_precision),
      scale: numberOrNull(c.numeric_scale),
      length: numberOrNull(c.character_maximum_length),
    });
    columns.set(table, of);
  }
  const foreignKeys = new Set(
    (
      await db
        .selectFrom("information_schema.table_constraints")
        .select("constraint_name as constraint_name")
        .where("table_schema", "=", "analytics")
        .where("constraint_type", "=", "FOREIGN KEY")
        .execute()
    ).map((r) => lower(r.constraint_name)),
  );
  const views = await db
    .selectFrom("information_schema.views")
    .select("table_name as name")
    .where("table_schema", "=", "analytics")
    .execute();
  const routines = await db
    .selectFrom("information_schema.routines")
    .select("routine_name as name")
    .where("routine_schema", "=", "analytics")
    .execute();
  const objects = new Set([...views, ...routines].map((r) => lower(r.name)));
  const definitions = new Map<string, string>();
  if (columns.has("replica.schema_objects"))
    for (const r of await db.selectFrom("replica.schema_objects").select(["name", "definition"]).execute())
      definitions.set(lower(r.name), String(r.definition));
  const descriptions = new Map<string, string>();
  if (schemas.has("analytics"))
    for (const r of (await descriptionsQuery(engine).execute(db)).rows)
      if (typeof r.description === "string")
        descriptions.set(
          r.column_name === null || r.column_name === undefined
            ? lower(r.object)
            : `${lower(r.object)}.${lower(r.column_name)}`,
          r.description,
        );
  return { schemas, columns, foreignKeys, objects, definitions, descriptions };
}
