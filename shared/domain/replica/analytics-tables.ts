/**
 * The `analytics` schema BI users read (API.md, "Read-only SQL replica"): the API's resources, fields
 * in snake_case, one table each.
 */
import { dataQualityTypeSchema } from "../data-quality-exception";
import { col, CURRENCY, ID, numberKinds, optional, text, type ForeignKey, type TableDefinition } from "./table-types";

export type AnalyticsTableName =
  | "portfolios"
  | "portfolio_members"
  | "securities"
  | "prices"
  | "fx_rates"
  | "positions"
  | "valuations"
  | "holdings"
  | "transactions"
  | "exceptions"
  | "jobs";

/** A column of a table naming a portfolio or a security, declared as a key for BI tools to join by. */
const toPortfolio: ForeignKey = { columns: ["portfolio_id"], references: { table: "portfolios", columns: ["id"] } };
const toSecurity: ForeignKey = { columns: ["security_id"], references: { table: "securities", columns: ["id"] } };

/** "A, B or C". */
const either = (values: readonly string[]): string =>
  values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values.at(-1) ?? ""}`;

export const analyticsTables: readonly TableDefinition[] = [
  {
    schema: "analytics",
    name: "portfolios",
    description: "One row per portfolio, as `GET /api/v1/portfolios/{id}`",
    primaryKey: ["id"],
    columns: [
      col("id", ID, "The portfolio's id"),
      col("name", text(200), "Name"),
      col("code", text(50), "Unique code"),
      col("client_id", text(100), "The client it belongs to"),
      col("base_currency", CURRENCY, "ISO 4217 code values are expressed in"),
      col("type", text(20), "standard, composite or fund"),
      col("status", text(20), "active, inactive or archived"),
      optional("total_value", numberKinds.money, "Value on latest_valuation_date, in the base currency"),
      optional("latest_valuation_date", { kind: "date" }, "Date of the latest valuation"),
      col("created_at", { kind: "timestamp" }, "When it was created (UTC)"),
      col("updated_at", { kind: "timestamp" }, "When it last changed (UTC)"),
    ],
  },
  {
    schema: "analytics",
    name: "portfolio_members",
    description: "The member portfolios of each composite",
    primaryKey: ["portfolio_id", "member_id"],
    columns: [col("portfolio_id", ID, "The composite portfolio"), col("member_id", ID, "A member portfolio")],
  },
  {
    schema: "analytics",
    name: "securities",
    description: "One row per security, as `GET /api/v1/securities/{id}`",
    primaryKey: ["id"],
    columns: [
      col("id", ID, "The service's security id"),
      optional("isin", text(12), "ISIN"),
      optional("cusip", text(9), "CUSIP"),
      optional("sedol", text(7), "SEDOL"),
      optional("figi", text(12), "FIGI"),
      optional("ticker", text(30), "Ticker"),
      col("name", text(300), "Name"),
      col("asset_class", text(20), "equity, bond, fund, etf, cash, derivative or other"),
      col("currency", CURRENCY, "Trading currency"),
      optional("country", text(2), "ISO 3166 alpha-2 country"),
      optional("exchange", text(20), "Exchange"),
      optional("look_through_portfolio_id", ID, "The fund portfolio this security looks through to"),
      col("status", text(20), "active or inactive"),
      col("created_at", { kind: "timestamp" }, "When it was created (UTC)"),
      col("updated_at", { kind: "timestamp" }, "When it last changed (UTC)"),
    ],
  },
  {
    schema: "analytics",
    name: "prices",
    description: "Every stored price: one per security, date, type and source",
    primaryKey: ["security_id", "date", "type", "source"],
    foreignKeys: [toSecurity],
    columns: [
      col("security_id", ID, "The security"),
      optional("isin", text(12), "Its ISIN"),
      col("date", { kind: "date" }, "Price date"),
      col("type", text(10), "close, mid, bid, ask or nav"),
      col("price", numberKinds.price, "Price per unit"),
      col("currency", CURRENCY, "Currency of the price"),
      col("source", text(100), "Where it came from"),
    ],
  },
  {
    schema: "analytics",
    name: "fx_rates",
    description: "Every stored FX rate: 1 base_currency = rate quote_currency",
    primaryKey: ["base_currency", "quote_currency", "date", "source"],
    columns: [
      col("base_currency", CURRENCY, "Base currency"),
      col("quote_currency", CURRENCY, "Quote currency"),
      col("date", { kind: "date" }, "Rate date"),
      col("rate", numberKinds.rate, "Units of quote_currency per unit of base_currency"),
      col("source", text(100), "Where it came from"),
    ],
  },
  {
    schema: "analytics",
    name: "positions",
    description: "The current position snapshot of each portfolio and date (a replaced snapshot's rows are gone)",
    primaryKey: ["portfolio_id", "date", "security_id"],
    foreignKeys: [toPortfolio, toSecurity],
    columns: [
      col("portfolio_id", ID, "The portfolio"),
      col("security_id", ID, "The security held"),
      col("date", { kind: "date" }, "Snapshot date"),
      col("quantity", numberKinds.quantity, "Units held"),
      optional("cost_basis", numberKinds.money, "Cost basis"),
      optional("currency", CURRENCY, "Currency of the cost basis"),
    ],
  },
  {
    schema: "analytics",
    name: "valuations",
    description: "Every stored valuation of a portfolio and date",
    primaryKey: ["portfolio_id", "date"],
    foreignKeys: [toPortfolio],
    columns: [
      col("portfolio_id", ID, "The portfolio"),
      col("date", { kind: "date" }, "Valuation date"),
      col("base_currency", CURRENCY, "Currency of total_value"),
      col(
        "total_value",
        numberKinds.money,
        "Sum of the valued holdings' market values (every holding's only where complete)",
      ),
      optional(
        "complete",
        { kind: "boolean" },
        "Whether every holding has a market value (exclude incomplete valuations with WHERE complete); null for valuations stored before it was recorded",
      ),
      optional(
        "unvalued_count",
        { kind: "integer" },
        "Holdings without a market value, left out of total_value and the weights",
      ),
      col("valued_at", { kind: "timestamp" }, "When it was computed (UTC)"),
    ],
  },
  {
    schema: "analytics",
    name: "holdings",
    description:
      "The holdings of every stored valuation, equal to `GET /api/v1/portfolios/{id}/holdings?date=` for that date (no look-through)",
    primaryKey: ["portfolio_id", "date", "security_id"],
    foreignKeys: [toPortfolio, toSecurity],
    columns: [
      col("portfolio_id", ID, "The portfolio"),
      col("date", { kind: "date" }, "Valuation date"),
      col("security_id", ID, "The security"),
      optional("isin", text(12), "Its ISIN"),
      col("quantity", numberKinds.quantity, "Units held (net)"),
      optional("price", numberKinds.price, "Price used"),
      optional("price_date", { kind: "date" }, "Date of the price used"),
      optional("price_type", text(10), "Type of the price used"),
      optional("price_currency", CURRENCY, "Currency of the price used"),
      optional("fx_rate", numberKinds.usedRate, "Rate from price_currency into the base currency"),
      optional("fx_method", text(10), "How fx_rate was found: identity, direct, inverse or cross"),
      optional("fx_pivot", CURRENCY, "The currency a cross rate went through (fx_method cross)"),
      optional(
        "market_value",
        numberKinds.money,
        "Value in the portfolio's base currency; null when it could not be valued (see unvalued)",
      ),
      optional("weight", numberKinds.weight, "Share of total_value, which sums the valued holdings only"),
      optional(
        "unvalued",
        text(20),
        "Why market_value is null: MISSING_PRICE, MISSING_FX_RATE, UNKNOWN_SECURITY or VALUE_OUT_OF_RANGE",
      ),
    ],
  },
  {
    schema: "analytics",
    name: "transactions",
    description: "One row per transaction, in its current status",
    primaryKey: ["id"],
    foreignKeys: [toPortfolio, toSecurity],
    columns: [
      col("id", ID, "The service's transaction id"),
      col("external_id", text(200), "The sender's id"),
      col("portfolio_id", ID, "The portfolio"),
      optional("security_id", ID, "The security (none for cash-only types)"),
      col(
        "type",
        text(20),
        "buy, sell, dividend, interest, fee, deposit, withdrawal, transfer_in, transfer_out or corporate_action",
      ),
      col("status", text(20), "pending, settled, failed or cancelled"),
      col("trade_date", { kind: "date" }, "Trade date"),
      optional("settlement_date", { kind: "date" }, "Settlement date"),
      optional("quantity", numberKinds.quantity, "Units"),
      optional("price", numberKinds.price, "Price per unit"),
      optional("gross_amount", numberKinds.money, "quantity × price before fees"),
      optional("fees", numberKinds.money, "Fees"),
      col("net_amount", numberKinds.money, "Cash moved"),
      col("currency", CURRENCY, "Currency of the amounts"),
      optional("source", text(100), "Where it came from"),
      col("created_at", { kind: "timestamp" }, "When it was first stored (UTC)"),
      col("updated_at", { kind: "timestamp" }, "When it last changed (UTC)"),
    ],
  },
  {
    schema: "analytics",
    name: "exceptions",
    description: "Data-quality exceptions, open and resolved",
    primaryKey: ["id"],
    columns: [
      col("id", text(100), "The exception's id"),
      col("type", text(30), either(dataQualityTypeSchema.options)),
      col("severity", text(10), "info, warning or error"),
      col("message", { kind: "long-text" }, "What was found"),
      col("entity_type", text(50), "Kind of record concerned"),
      col("entity_id", text(200), "Id of the record concerned"),
      optional("job_id", ID, "The refresh job that raised it"),
      col("status", text(10), "open or resolved"),
      col("created_at", { kind: "timestamp" }, "When it was raised (UTC)"),
      optional("resolved_at", { kind: "timestamp" }, "When it was resolved (UTC)"),
    ],
  },
  {
    schema: "analytics",
    name: "jobs",
    description: "Refresh jobs: one per import or ingested file",
    primaryKey: ["id"],
    columns: [
      col("id", ID, "The job's id"),
      col("source", text(10), "api, sftp or blob"),
      col("data_type", text(30), "What was imported"),
      optional("feed_id", ID, "The feed of an ingested file"),
      optional("file_name", text(1000), "The ingested file's name"),
      col("status", text(20), "running, completed or failed"),
      col("received", { kind: "integer" }, "Records received"),
      col("accepted", { kind: "integer" }, "Records stored"),
      col("rejected", { kind: "integer" }, "Records rejected"),
      col("started_at", { kind: "timestamp" }, "When it started (UTC)"),
      optional("completed_at", { kind: "timestamp" }, "When it finished (UTC)"),
      // Added after the table: nullable, as every column a later version adds (existing rows have none).
      optional(
        "removed",
        { kind: "integer" },
        "Positions the snapshots it replaced no longer have (positions imports; 0 for other data)",
      ),
      optional("duplicate_of", ID, "A file this feed had already ingested: the job that ingested it"),
      optional("reprocess_of", ID, "A file processed again: the failed job whose quarantined file this job read"),
      optional("file_container", text(20), "Where the service keeps the job's file: quarantine or archive"),
      optional(
        "file_path",
        text(1024),
        "The kept file's name in that container (GET /api/v1/jobs/{id}/file downloads it)",
      ),
      optional("file_sha256", text(64), "SHA-256 of the file's content, hex"),
    ],
  },
];
