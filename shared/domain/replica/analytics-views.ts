/**
 * What every analyst writes first, made once in `analytics` (API.md, "Self-describing"): each
 * portfolio's latest holdings with the security's name and asset class, and the same as of a date. The
 * columns follow the holdings table (a column added there appears here too); the adapter writes the
 * engine's SQL from them.
 */
import { analyticsTables, type AnalyticsTableName } from "./analytics-tables";
import { col, type ColumnDefinition, type ColumnType } from "./table-types";

/** A column of a view: where it comes from (the view joins valuations, holdings, portfolios, securities). */
export interface ViewColumn extends ColumnDefinition {
  from: { table: Extract<AnalyticsTableName, "valuations" | "holdings" | "portfolios" | "securities">; column: string };
}

export interface ViewDefinition {
  schema: "analytics";
  name: string;
  /** A view, or a function returning a table (its parameters are `parameters`). */
  kind: "view" | "function";
  description: string;
  parameters: readonly ColumnDefinition[];
  columns: readonly ViewColumn[];
}

function source(table: ViewColumn["from"]["table"], column: string, name = column, description?: string): ViewColumn {
  const definition = analyticsTables.find((t) => t.name === table)?.columns.find((c) => c.name === column);
  if (definition === undefined) throw new Error(`no column analytics.${table}.${column}`);
  return { ...definition, name, description: description ?? definition.description, from: { table, column } };
}

/** The joined columns may be missing (a security or portfolio not in the replica): nullable. */
const joined = (c: ViewColumn): ViewColumn => ({ ...c, nullable: true });

const holdings = analyticsTables.find((t) => t.name === "holdings");
const leading = new Set(["portfolio_id", "date", "security_id"]);

/** A holding of a valuation, named: the portfolio, its currency, the date, the security with its name and class, then every other holdings column. */
const holdingColumns: readonly ViewColumn[] = [
  source("holdings", "portfolio_id"),
  joined(source("portfolios", "name", "portfolio_name", "The portfolio's name")),
  source("valuations", "base_currency", "base_currency", "Currency of market_value"),
  source("holdings", "date", "date", "Date of the valuation"),
  source("holdings", "security_id"),
  joined(source("securities", "name", "security_name", "The security's name")),
  joined(
    source(
      "securities",
      "asset_class",
      "asset_class",
      "The security's asset class (equity, bond, fund, etf, cash, derivative or other)",
    ),
  ),
  ...(holdings?.columns ?? []).filter((c) => !leading.has(c.name)).map((c) => source("holdings", c.name)),
];

const dateType: ColumnType = { kind: "date" };

export const analyticsViews: readonly ViewDefinition[] = [
  {
    schema: "analytics",
    name: "latest_holdings",
    kind: "view",
    description:
      "The holdings of each portfolio's latest valuation, with the security's name and asset class (no look-through)",
    parameters: [],
    columns: holdingColumns,
  },
  {
    schema: "analytics",
    name: "holdings_as_of",
    kind: "function",
    description:
      "The holdings of each portfolio's latest valuation on or before as_of, with the security's name and asset class: SELECT * FROM analytics.holdings_as_of('2024-03-31')",
    parameters: [col("as_of", dateType, "The date: each portfolio's latest valuation on or before it")],
    columns: holdingColumns,
  },
];
