/** The replica's own bookkeeping (schema `replica`, which BI logins cannot read), and every table. */
import { analyticsTables } from "./analytics-tables";
import { versionTables } from "./versions-tables";
import { col, ID, optional, text, type TableDefinition } from "./table-types";

/** The holdings columns a staged chunk row carries (every holdings column). */
const holdingColumns = (analyticsTables.find((t) => t.name === "holdings")?.columns ?? []).filter(
  (c) => c.name !== "portfolio_id" && c.name !== "date",
);

/** Bookkeeping the projection needs; BI logins cannot read this schema. */
export const replicaTables: readonly TableDefinition[] = [
  {
    schema: "replica",
    name: "documents",
    description: "The version (change-feed _lsn) last applied of each projected document",
    primaryKey: ["doc_key"],
    columns: [
      col("doc_key", { kind: "binary", length: 32 }, "SHA-256 of container, partition key and id"),
      col("version", { kind: "integer" }, "The document's _lsn when applied"),
    ],
  },
  {
    schema: "replica",
    name: "sources",
    description: "Per source container: documents applied, the newest _ts applied, when the last change was applied",
    primaryKey: ["container"],
    columns: [
      col("container", text(50), "Source container"),
      col("documents", { kind: "integer" }, "Documents applied (each counted once, at its first version)"),
      col("newest_ts", { kind: "integer" }, "The newest _ts among the changes applied"),
      col("last_projected_at", { kind: "timestamp" }, "When a change was last applied (UTC)"),
    ],
  },
  {
    schema: "replica",
    name: "holding_chunks",
    description: "Holdings of valuation chunks, staged under their run until the run's header arrives",
    primaryKey: ["portfolio_id", "date", "run_id", "chunk", "ord"],
    columns: [
      col("portfolio_id", ID, "The portfolio"),
      col("date", { kind: "date" }, "Valuation date"),
      col("run_id", text(64), "The valuation run the chunk belongs to"),
      optional(
        "run_version",
        text(100),
        "The run's computation version (orders runs of one portfolio-date; null before chunks carried it)",
      ),
      col("chunk", { kind: "integer" }, "Chunk number"),
      col("ord", { kind: "integer" }, "Position within the chunk"),
      ...holdingColumns,
    ],
  },
  {
    schema: "replica",
    name: "logins",
    description:
      "The limits of each BI login, enforced from the server side (a member of the reader role without a row gets the defaults)",
    primaryKey: ["username"],
    columns: [
      col("username", text(128), "The database login"),
      col("connection_limit", { kind: "integer" }, "Sessions it may have open at once"),
      col(
        "statement_timeout_seconds",
        { kind: "integer" },
        "How long one statement (or an open transaction left idle) may run",
      ),
    ],
  },
  {
    schema: "replica",
    name: "schema_objects",
    description: "The views and functions of analytics as last created: a changed definition is created again",
    primaryKey: ["name"],
    columns: [
      col("name", text(128), "The view or function"),
      col("definition", text(64), "SHA-256 of the statement that created it"),
    ],
  },
];

export const allTables: readonly TableDefinition[] = [...analyticsTables, ...versionTables, ...replicaTables];

export function tableDefinition(schema: TableDefinition["schema"], name: string): TableDefinition {
  const table = allTables.find((t) => t.schema === schema && t.name === name);
  if (table === undefined) throw new Error(`no replica table ${schema}.${name}`);
  return table;
}
