/**
 * Descriptions in the catalogue (API.md, "Self-describing"): `COMMENT ON` in PostgreSQL, the
 * `MS_Description` extended property in SQL Server, for every table, view, function and column of
 * `analytics`, from the same definitions the generated table reference (docs/replica.md) is rendered
 * from. Only what differs from the catalogue is written.
 */
import { analyticsViews } from "../../domain/replica/analytics-views";
import { biTables } from "../../domain/replica/versions-tables";
import type { ReplicaEngine } from "./replica-sql";

/** The text a BI tool shows: the reference's words, without its markdown. */
export const catalogText = (description: string): string => description.replace(/`/g, "");

export interface Description {
  kind: "table" | "view" | "function";
  object: string;
  column?: string;
  text: string;
}

/** Every description `analytics` should carry. */
export function expectedDescriptions(): Description[] {
  const out: Description[] = [];
  for (const t of biTables) {
    out.push({ kind: "table", object: t.name, text: catalogText(t.description) });
    for (const c of t.columns)
      out.push({ kind: "table", object: t.name, column: c.name, text: catalogText(c.description) });
  }
  for (const v of analyticsViews) {
    out.push({ kind: v.kind, object: v.name, text: catalogText(v.description) });
    // A PostgreSQL function's result columns cannot carry comments; the view's columns say the same.
    if (v.kind === "view")
      for (const c of v.columns)
        out.push({ kind: "view", object: v.name, column: c.name, text: catalogText(c.description) });
  }
  return out;
}

const literal = (text: string): string => text.replace(/'/g, "''");

/** The statement that sets one description; `exists`: SQL Server updates an existing property rather than adding it. */
export function describe(engine: ReplicaEngine, d: Description, exists: boolean): string {
  if (engine === "postgres") {
    const target =
      d.column !== undefined
        ? `COLUMN "analytics"."${d.object}"."${d.column}"`
        : d.kind === "function"
          ? `FUNCTION "analytics"."${d.object}"`
          : `${d.kind === "view" ? "VIEW" : "TABLE"} "analytics"."${d.object}"`;
    return `COMMENT ON ${target} IS '${literal(d.text)}'`;
  }
  const procedure = exists ? "sp_updateextendedproperty" : "sp_addextendedproperty";
  const level1 = d.kind === "function" ? "FUNCTION" : d.kind === "view" ? "VIEW" : "TABLE";
  const column = d.column !== undefined ? `, @level2type = N'COLUMN', @level2name = N'${d.column}'` : "";
  return `EXEC sys.${procedure} @name = N'MS_Description', @value = N'${literal(d.text)}', @level0type = N'SCHEMA', @level0name = N'analytics', @level1type = N'${level1}', @level1name = N'${d.object}'${column}`;
}

/** `object` or `object.column`, as the catalogue's descriptions are keyed. */
export const descriptionKey = (d: Pick<Description, "object" | "column">): string =>
  d.column === undefined ? d.object : `${d.object}.${d.column}`;
