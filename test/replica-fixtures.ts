/**
 * The replica as a BI user sees it: a PostgreSQL client connected with a login from the API, and the
 * comparison of every `analytics` table with what the API answers.
 */
import { Client, types as pgTypes } from "pg";
import { expect } from "vitest";
import { call } from "./http";
import type { HoldingsView } from "./investment-fixtures";

export interface ReplicaDetails {
  host: string;
  port: number;
  database: string;
  status: string;
  lagSeconds: number | null;
  lastProjectedAt: string | null;
  tables: { name: string; rows: number }[];
  documents: { stored: number; projected: number } | null;
}

/** The runtime to call: this file's (useOwnRuntime, the default) or one the test started itself. */
const at = (base: string | undefined): { base?: string } => (base === undefined ? {} : { base });

export async function replicaSettings(token: string, base?: string): Promise<ReplicaDetails> {
  const reply = await call("GET", "/api/v1/settings/replica", { token, ...at(base) });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
}

export async function newLogin(
  token: string,
  name = "BI test",
  base?: string,
): Promise<{ id: string; username: string; password: string }> {
  const reply = await call("POST", "/api/v1/settings/replica/logins", { token, body: { name }, ...at(base) });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.data;
}

/** As a BI tool reads them: numbers as numbers (from exact decimal text), dates as text, timestamps as ISO 8601 UTC. */
const readable = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === 1700 || oid === 20) return (v: string) => Number(v);
    if (oid === 1082) return (v: string) => v;
    if (oid === 1184) return (v: string) => new Date(v).toISOString();
    return pgTypes.getTypeParser(oid, format ?? "text") as (v: string) => unknown;
  }) as typeof pgTypes.getTypeParser,
};

/** A connection of a BI user to the replica (what the settings answer says, with a login's username and password). */
export async function biClient(
  details: Pick<ReplicaDetails, "host" | "port" | "database">,
  login: { username: string; password: string },
): Promise<Client> {
  const client = new Client({
    host: details.host,
    port: details.port,
    database: details.database,
    user: login.username,
    password: login.password,
    types: readable,
    connectionTimeoutMillis: 5000,
  });
  client.on("error", () => {});
  await client.connect();
  return client;
}

type Row = Record<string, unknown>;

/** Every item of a list, following `pagination.nextCursor`. */
async function listAll(token: string, path: string, base: string | undefined): Promise<Row[]> {
  const items: Row[] = [];
  const sep = path.includes("?") ? "&" : "?";
  for (let cursor: string | undefined = undefined; ;) {
    const reply = await call(
      "GET",
      `${path}${sep}pageSize=200${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      { token, ...at(base) },
    );
    expect(reply.status, reply.text).toBe(200);
    items.push(...(reply.body.data as Row[]));
    cursor = reply.body.pagination?.nextCursor ?? undefined;
    if (cursor === undefined || cursor === null) return items;
  }
}
const sortKey = (row: Row, key: readonly string[]): string => JSON.stringify(key.map((k) => row[k]));
const sorted = (rows: Row[], key: readonly string[]): Row[] =>
  [...rows].sort((a, b) => (sortKey(a, key) < sortKey(b, key) ? -1 : 1));

export async function tableRows(client: Client, table: string, key: readonly string[]): Promise<Row[]> {
  const { rows } = await client.query<Row>(`SELECT * FROM analytics.${table}`);
  return sorted(rows, key);
}

/** Positions and FX rates have no read endpoint: what the API accepted (the latest snapshot of each portfolio-date). */
export interface Accepted {
  positions: Map<
    string,
    {
      portfolioId: string;
      date: string;
      positions: { securityId: string; quantity: number; costBasis?: number | null; currency?: string | null }[];
    }
  >;
  fxRates: { baseCurrency: string; quoteCurrency: string; date: string; rate: number; source: string }[];
}

/**
 * Every `analytics` table next to the API's answers for the same data, as [table, replica rows, API
 * rows]: equal when the replica has caught up.
 */
export async function replicaAndApi(
  token: string,
  client: Client,
  accepted: Accepted,
  base?: string,
): Promise<[string, Row[], Row[]][]> {
  const portfolios = await listAll(token, "/api/v1/portfolios", base);
  const securities = await listAll(token, "/api/v1/securities", base);
  const prices = (
    await Promise.all(securities.map((s: Row) => listAll(token, `/api/v1/securities/${String(s.id)}/prices`, base)))
  ).flat();
  const transactions = await listAll(token, "/api/v1/transactions", base);
  const exceptions = await listAll(token, "/api/v1/exceptions", base);
  const jobs = await listAll(token, "/api/v1/jobs", base);
  const valuations = await tableRows(client, "valuations", ["portfolio_id", "date"]);
  const views: HoldingsView[] = [];
  for (const v of valuations) {
    const reply = await call("GET", `/api/v1/portfolios/${String(v.portfolio_id)}/holdings?date=${String(v.date)}`, {
      token,
      ...at(base),
    });
    expect(reply.status, reply.text).toBe(200);
    views.push(reply.body.data);
  }
  const expected: Record<string, { key: string[]; rows: Row[] }> = {
    portfolios: {
      key: ["id"],
      rows: portfolios.map((p: Row) => ({
        id: p.id,
        name: p.name,
        code: p.code,
        client_id: p.clientId,
        base_currency: p.baseCurrency,
        type: p.type,
        status: p.status,
        total_value: p.totalValue,
        latest_valuation_date: p.latestValuationDate,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      })),
    },
    portfolio_members: {
      key: ["portfolio_id", "member_id"],
      rows: portfolios.flatMap((p: Row) =>
        ((p.memberIds as string[] | undefined) ?? []).map((m) => ({ portfolio_id: p.id, member_id: m })),
      ),
    },
    securities: {
      key: ["id"],
      rows: securities.map((s: Row) => ({
        id: s.id,
        isin: s.isin,
        cusip: s.cusip,
        sedol: s.sedol,
        figi: s.figi,
        ticker: s.ticker,
        name: s.name,
        asset_class: s.assetClass,
        currency: s.currency,
        country: s.country,
        exchange: s.exchange,
        look_through_portfolio_id: s.lookThroughPortfolioId,
        status: s.status,
        created_at: s.createdAt,
        updated_at: s.updatedAt,
      })),
    },
    prices: {
      key: ["security_id", "date", "type", "source"],
      rows: prices.map((p: Row) => ({
        security_id: p.securityId,
        isin: p.isin,
        date: p.date,
        type: p.type,
        price: p.price,
        currency: p.currency,
        source: p.source,
      })),
    },
    fx_rates: {
      key: ["base_currency", "quote_currency", "date", "source"],
      rows: accepted.fxRates.map((r) => ({
        base_currency: r.baseCurrency,
        quote_currency: r.quoteCurrency,
        date: r.date,
        rate: r.rate,
        source: r.source,
      })),
    },
    positions: {
      key: ["portfolio_id", "date", "security_id"],
      rows: [...accepted.positions.values()].flatMap((s) =>
        s.positions.map((p) => ({
          portfolio_id: s.portfolioId,
          security_id: p.securityId,
          date: s.date,
          quantity: p.quantity,
          cost_basis: p.costBasis ?? null,
          currency: p.currency ?? null,
        })),
      ),
    },
    valuations: {
      key: ["portfolio_id", "date"],
      rows: views.map((v) => ({
        portfolio_id: v.portfolioId,
        date: v.date,
        base_currency: v.baseCurrency,
        total_value: v.totalValue,
        complete: v.complete,
        unvalued_count: v.unvaluedCount,
      })),
    },
    holdings: {
      key: ["portfolio_id", "date", "security_id"],
      rows: views.flatMap((v) =>
        v.holdings.map((h) => ({
          portfolio_id: v.portfolioId,
          date: v.date,
          security_id: h.securityId,
          isin: h.isin,
          quantity: h.quantity,
          price: h.price,
          price_date: h.priceDate,
          price_type: h.priceType,
          price_currency: h.priceCurrency,
          fx_rate: h.fxRate,
          fx_method: h.fxMethod,
          fx_pivot: h.fxPivot,
          market_value: h.marketValue,
          weight: h.weight,
          unvalued: h.unvalued,
        })),
      ),
    },
    transactions: {
      key: ["id"],
      rows: transactions.map((t: Row) => ({
        id: t.id,
        external_id: t.externalId,
        portfolio_id: t.portfolioId,
        security_id: t.securityId,
        type: t.type,
        status: t.status,
        trade_date: t.tradeDate,
        settlement_date: t.settlementDate,
        quantity: t.quantity,
        price: t.price,
        gross_amount: t.grossAmount,
        fees: t.fees,
        net_amount: t.netAmount,
        currency: t.currency,
        source: t.source,
        created_at: t.createdAt,
        updated_at: t.updatedAt,
      })),
    },
    exceptions: {
      key: ["id"],
      rows: exceptions.map((e: Row) => {
        const entity = e.entity as { type: string; id: string };
        return {
          id: e.id,
          type: e.type,
          severity: e.severity,
          message: e.message,
          entity_type: entity.type,
          entity_id: entity.id,
          job_id: e.jobId,
          status: e.status,
          created_at: e.createdAt,
          resolved_at: e.resolvedAt,
        };
      }),
    },
    jobs: {
      key: ["id"],
      rows: jobs.map((j: Row) => {
        const { received, accepted, rejected, removed } = j.counts as Record<string, number>;
        const file = j.file as { container: string; name: string; sha256: string } | undefined;
        return {
          id: j.id,
          source: j.source,
          data_type: j.dataType,
          feed_id: j.feedId,
          file_name: j.fileName,
          status: j.status,
          received,
          accepted,
          rejected,
          started_at: j.startedAt,
          completed_at: j.completedAt,
          removed,
          duplicate_of: j.duplicateOf ?? null,
          reprocess_of: j.reprocessOf ?? null,
          file_container: file?.container ?? null,
          file_path: file?.name ?? null,
          file_sha256: file?.sha256 ?? null,
        };
      }),
    },
  };
  const out: [string, Row[], Row[]][] = [];
  for (const [table, { key, rows }] of Object.entries(expected)) {
    const replica = await tableRows(client, table, key);
    // valued_at is not in the API's holdings answer: present in the replica, compared without it.
    const shown = table === "valuations" ? replica.map(({ valued_at: _at, ...rest }) => rest) : replica;
    out.push([table, shown, sorted(rows, key)]);
  }
  return out;
}
