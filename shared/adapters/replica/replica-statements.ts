/**
 * Every statement the projection runs, written once with Kysely; the engine only picks the dialect
 * (and MERGE's returning clause). Callers split batches with `chunksOf` so that each stays within the
 * engine's statement limits (SQL Server's 2,100 parameters). `sqlserver-statements.test.ts` snapshots their T-SQL.
 */
import { sql } from "kysely";
import type { Row } from "../../domain/replica/column-values";
import type { HoldingsRun, VersionClose } from "../../domain/replica/projection";
import { tableDefinition } from "../../domain/replica/replica-tables";
import { qualified, type TableDefinition } from "../../domain/replica/table-types";
import {
  columnSql,
  columnTypeText,
  parameterValue,
  statementLimits,
  type ReplicaDb,
  type ReplicaEngine,
  type SqlValue,
} from "./replica-sql";

export const documents = tableDefinition("replica", "documents");
const sources = tableDefinition("replica", "sources");
const staged = tableDefinition("replica", "holding_chunks");
const holdings = tableDefinition("analytics", "holdings");

/** One row of `replica.documents`: the version of a document applied. */
export interface VersionRow {
  doc_key: Buffer;
  version: number;
}

/** One row of `replica.sources`, as a batch adds to it: documents seen for the first time, its newest `_ts`. */
export interface SourceRow {
  container: string;
  documents: number;
  newest_ts: number;
  last_projected_at: string;
}

/** Splits `items` so that no part needs more parameters (or rows) than one statement of the engine takes. */
export function chunksOf<T>(items: readonly T[], parametersEach: number, engine: ReplicaEngine = "sqlserver"): T[][] {
  const limits = statementLimits[engine];
  const size = Math.max(1, Math.min(limits.rows, Math.floor(limits.parameters / Math.max(1, parametersEach))));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function typeOf(table: TableDefinition, column: string): TableDefinition["columns"][number]["type"] {
  const definition = table.columns.find((c) => c.name === column);
  if (definition === undefined) throw new Error(`${qualified(table)} has no column ${column}`);
  return definition.type;
}

const sent = (engine: ReplicaEngine, table: TableDefinition, row: Row): Record<string, SqlValue> =>
  Object.fromEntries(
    Object.entries(row).map(([column, value]) => [column, parameterValue(engine, typeOf(table, column), value)]),
  );

/**
 * `(VALUES (…), (…)) AS s(columns)`, each value cast to its column's type (in a VALUES list the engines
 * cannot infer parameter types from the target table).
 */
function valuesOf(
  engine: ReplicaEngine,
  table: TableDefinition,
  rows: readonly Record<string, SqlValue>[],
  alias: string,
) {
  const columns = table.columns.map((c) => c.name);
  const tuples = rows.map(
    (row) =>
      sql`(${sql.join(columns.map((c) => sql`cast(${parameterValue(engine, typeOf(table, c), row[c] ?? null)} as ${columnSql(engine, typeOf(table, c))})`))})`,
  );
  return sql<Record<string, SqlValue>>`(values ${sql.join(tuples)})`.as<string>(
    sql`${sql.ref(alias)}(${sql.join(columns.map((c) => sql.ref(c)))})`,
  );
}

/**
 * The version guard: records each document's version where it is newer than the one applied (or none
 * was), and returns exactly those documents, with `INSERT` for a first version (no rows to replace).
 * PostgreSQL runs it as `INSERT … ON CONFLICT DO UPDATE … WHERE`, which looks each key up through the
 * primary key's index (its MERGE joins the whole VALUES list against the table, slower as the table
 * grows); a row it inserted has `xmax = 0`. SQL Server keeps MERGE with `$action`.
 */
export function mergeVersions(db: ReplicaDb, engine: ReplicaEngine, rows: readonly VersionRow[]) {
  const values = rows.map((r): Record<string, SqlValue> => ({ ...r }));
  if (engine === "postgres")
    return db
      .insertInto(qualified(documents))
      .columns(documents.columns.map((c) => c.name))
      .expression(unnested(documents, values))
      .onConflict((oc) =>
        oc
          .column("doc_key")
          .doUpdateSet((eb) => ({ version: eb.ref("excluded.version") }))
          .where(`${qualified(documents)}.version`, "<", (eb) => eb.ref("excluded.version")),
      )
      .returning(["doc_key", sql<string>`case when xmax = 0 then 'INSERT' else 'UPDATE' end`.as("action")]);
  return db
    .mergeInto(`${qualified(documents)} as t`)
    .using(valuesOf(engine, documents, values, "s"), "s.doc_key", "t.doc_key")
    .whenMatchedAnd("t.version", "<", (eb) => eb.ref("s.version"))
    .thenUpdateSet((eb) => ({ version: eb.ref("s.version") }))
    .whenNotMatched()
    .thenInsertValues((eb) => ({ doc_key: eb.ref("s.doc_key"), version: eb.ref("s.version") }))
    .output((eb) => [eb.ref("inserted.doc_key").as("doc_key"), sql<string>`$action`.as("action")]);
}

/** What a batch applied, added to its source containers' counts (one row each). */
export function mergeSources(db: ReplicaDb, engine: ReplicaEngine, rows: readonly SourceRow[]) {
  const values = rows.map((r): Record<string, SqlValue> => ({ ...r }));
  return db
    .mergeInto(`${qualified(sources)} as t`)
    .using(valuesOf(engine, sources, values, "s"), "s.container", "t.container")
    .whenMatched()
    .thenUpdateSet((eb) => ({
      documents: eb(eb.ref("t.documents"), "+", eb.ref("s.documents")),
      newest_ts: eb
        .case()
        .when(eb.ref("s.newest_ts"), ">", eb.ref("t.newest_ts"))
        .then(eb.ref("s.newest_ts"))
        .else(eb.ref("t.newest_ts"))
        .end(),
      last_projected_at: eb.ref("s.last_projected_at"),
    }))
    .whenNotMatched()
    .thenInsertValues((eb) => Object.fromEntries(sources.columns.map((c) => [c.name, eb.ref(`s.${c.name}`)])));
}

/** The rows whose key columns have any of these values (a group each), deleted. */
export function deleteGroups(db: ReplicaDb, engine: ReplicaEngine, table: TableDefinition, keys: readonly Row[]) {
  return db.deleteFrom(qualified(table)).where((eb) => eb.or(keys.map((key) => eb.and(sent(engine, table, key)))));
}

/** Of these groups' keys (a version table's), those whose rows are closed already (`recorded_to` set). */
export function closedKeys(db: ReplicaDb, engine: ReplicaEngine, table: TableDefinition, keys: readonly Row[]) {
  const columns = Object.keys(keys[0] ?? {});
  return db
    .selectFrom(qualified(table))
    .select(columns)
    .distinct()
    .where((eb) => eb.or(keys.map((key) => eb.and(sent(engine, table, key)))))
    .where("recorded_to", "is not", null);
}

/** One version's rows, closed at `at` where they are still open. */
export function closeVersion(db: ReplicaDb, engine: ReplicaEngine, close: VersionClose) {
  return db
    .updateTable(qualified(close.table))
    .set(sent(engine, close.table, { recorded_to: close.at }))
    .where((eb) => eb.and(sent(engine, close.table, { ...close.key, version: close.version })))
    .where("recorded_to", "is", null);
}

export function insertRows(db: ReplicaDb, engine: ReplicaEngine, table: TableDefinition, rows: readonly Row[]) {
  if (engine === "postgres")
    return db
      .insertInto(qualified(table))
      .columns(table.columns.map((c) => c.name))
      .expression(unnested(table, rows));
  return db.insertInto(qualified(table)).values(rows.map((row) => sent(engine, table, row)));
}

/**
 * PostgreSQL: the rows as one array parameter per column, `unnest`ed into rows of the table's column
 * types. A statement has as many parameters as the table has columns, whatever the number of rows:
 * parsing and planning a VALUES list of thousands of parameters cost more than inserting its rows.
 */
function unnested(table: TableDefinition, rows: readonly Record<string, SqlValue>[]) {
  const arrays = table.columns.map(
    (c) => sql`${rows.map((row) => row[c.name] ?? null)}::${sql.raw(`${columnTypeText("postgres", c.type)}[]`)}`,
  );
  return sql<Record<string, SqlValue>>`select * from unnest(${sql.join(arrays)})`;
}

/**
 * Rows per statement for `table`: within SQL Server's parameter limit (a parameter per value), and on
 * PostgreSQL, whose statements take one array per column, only the row limit.
 */
export const rowsPerStatement = <T>(engine: ReplicaEngine, table: TableDefinition, rows: readonly T[]): T[][] =>
  chunksOf(rows, engine === "postgres" ? 1 : table.columns.length, engine);

type PortfolioDate = Pick<HoldingsRun, "portfolioId" | "date">;
const portfolioDate = (r: PortfolioDate): Row => ({ portfolio_id: r.portfolioId, date: r.date });

/** The runs staged for these portfolio-dates, with their computation versions. */
export function stagedRuns(db: ReplicaDb, runs: readonly PortfolioDate[]) {
  return db
    .selectFrom(qualified(staged))
    .select(["portfolio_id", "date", "run_id", "run_version"])
    .distinct()
    .where((eb) => eb.or(runs.map((r) => eb.and(portfolioDate(r)))));
}

/** Staged rows of these runs, dropped (runs superseded by a newer header). */
export function dropStagedRuns(db: ReplicaDb, runs: readonly Omit<HoldingsRun, "version">[]) {
  return db
    .deleteFrom(qualified(staged))
    .where((eb) => eb.or(runs.map((r) => eb.and({ ...portfolioDate(r), run_id: r.runId }))));
}

/** The holdings of these portfolio-dates become the staged rows of each one's run. */
export function copyStagedRuns(db: ReplicaDb, runs: readonly Omit<HoldingsRun, "version">[]) {
  const columns = holdings.columns.map((c) => c.name);
  return db
    .insertInto(qualified(holdings))
    .columns(columns)
    .expression(
      db
        .selectFrom(qualified(staged))
        .select(columns)
        .where((eb) => eb.or(runs.map((r) => eb.and({ ...portfolioDate(r), run_id: r.runId })))),
    );
}

/** Deletes the holdings of these portfolio-dates (before their run's rows are copied in). */
export const deleteHoldings = (db: ReplicaDb, engine: ReplicaEngine, runs: readonly PortfolioDate[]) =>
  deleteGroups(db, engine, holdings, runs.map(portfolioDate));

export const countRows = (db: ReplicaDb, table: TableDefinition) =>
  db.selectFrom(qualified(table)).select((eb) => eb.fn.countAll<number | string>().as("rows"));

/** Per source container: documents applied, the newest `_ts` applied, the last time anything was applied. */
export const appliedPerSource = (db: ReplicaDb) =>
  db.selectFrom(qualified(sources)).select(["container", "documents", "newest_ts", "last_projected_at"]);
