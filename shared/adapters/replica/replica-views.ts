/**
 * The engine's DDL of the `analytics` views and functions (domain/replica/analytics-views.ts): the same
 * SELECT on both engines (standard SQL, double-quoted names), a view in both, and the "as of a date"
 * variant as a SQL function returning a table (PostgreSQL) or an inline table-valued function (SQL
 * Server, which Power BI lists with the tables).
 */
import { createHash } from "node:crypto";
import type { ViewDefinition } from "../../domain/replica/analytics-views";
import { columnTypeText, type ReplicaEngine } from "./replica-sql";

const q = (name: string): string => `"${name}"`;
const alias = { valuations: "v", holdings: "h", portfolios: "p", securities: "s" } as const;

/** Each portfolio's holdings at its latest valuation date on or before `asOf` (an SQL expression), or its latest. */
function select(view: ViewDefinition, asOf: string | undefined): string {
  const columns = view.columns.map((c) => `${alias[c.from.table]}.${q(c.from.column)} AS ${q(c.name)}`).join(", ");
  const onOrBefore = asOf === undefined ? "" : ` AND l.${q("date")} <= ${asOf}`;
  return [
    `SELECT ${columns}`,
    `FROM "analytics"."valuations" v`,
    `JOIN "analytics"."holdings" h ON h."portfolio_id" = v."portfolio_id" AND h."date" = v."date"`,
    `LEFT JOIN "analytics"."portfolios" p ON p."id" = v."portfolio_id"`,
    `LEFT JOIN "analytics"."securities" s ON s."id" = h."security_id"`,
    `WHERE v."date" = (SELECT max(l."date") FROM "analytics"."valuations" l WHERE l."portfolio_id" = v."portfolio_id"${onOrBefore})`,
  ].join("\n");
}

/** The statement that creates the view or function (after any earlier version was dropped). */
export function createObject(engine: ReplicaEngine, view: ViewDefinition): string {
  const name = `${q(view.schema)}.${q(view.name)}`;
  if (view.kind === "view")
    // PostgreSQL: read with the reader's own rights, as a table would be (not the owner's).
    return engine === "postgres"
      ? `CREATE VIEW ${name} WITH (security_invoker = true) AS\n${select(view, undefined)}`
      : `CREATE VIEW ${name} AS\n${select(view, undefined)}`;
  const [parameter] = view.parameters;
  if (parameter === undefined) throw new Error(`${view.name} takes a parameter`);
  if (engine === "sqlserver")
    return `CREATE FUNCTION ${name} (@${parameter.name} ${columnTypeText(engine, parameter.type)}) RETURNS TABLE AS RETURN (\n${select(view, `@${parameter.name}`)}\n)`;
  const returns = view.columns.map((c) => `${q(c.name)} ${columnTypeText(engine, c.type)}`).join(", ");
  return `CREATE FUNCTION ${name} (${parameter.name} ${columnTypeText(engine, parameter.type)}) RETURNS TABLE (${returns}) LANGUAGE sql STABLE AS $$\n${select(view, parameter.name)}\n$$`;
}

/** Drops the view or function if it is there. */
export function dropObject(engine: ReplicaEngine, view: ViewDefinition): string {
  const name = `${q(view.schema)}.${q(view.name)}`;
  if (view.kind === "view") return `DROP VIEW IF EXISTS ${name}`;
  const [parameter] = view.parameters;
  return engine === "postgres" && parameter !== undefined
    ? `DROP FUNCTION IF EXISTS ${name} (${columnTypeText(engine, parameter.type)})`
    : `DROP FUNCTION IF EXISTS ${name}`;
}

/** What identifies a definition: a changed one (a column added to holdings, say) is created again. */
export const definitionHash = (engine: ReplicaEngine, view: ViewDefinition): string =>
  createHash("sha256").update(createObject(engine, view)).digest("hex");
