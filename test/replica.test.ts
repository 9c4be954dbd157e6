import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import type { Client } from "pg";
import { biTables } from "../shared/domain/replica/versions-tables";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, call, cosmosEndpoint, storageConnectionString, useOwnRuntime } from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  holdingsOf,
  imported,
  securityRecord,
  whenValued,
} from "./investment-fixtures";
import {
  biClient,
  newLogin,
  replicaAndApi,
  replicaSettings,
  type Accepted,
  type ReplicaDetails,
} from "./replica-fixtures";

useOwnRuntime();

describe("Read-only SQL replica, locally (PostgreSQL), as a BI user sees it", () => {
  let token: string;
  let details: ReplicaDetails;
  let bi: Client;
  const accepted: Accepted = { positions: new Map(), fxRates: [] };
  const ids = { a: "", b: "", composite: "", s1: "", s2: "", s3: "" };

  type PositionRow = { securityId: string; quantity: number; costBasis?: number | null; currency?: string | null };
  /**
   * Imports a snapshot and remembers it as the API accepted it (positions have no read endpoint):
   * `stored`, when a record left a field out that the position keeps, otherwise the rows as sent.
   */
  const positions = async (
    portfolioId: string,
    date: string,
    rows: PositionRow[],
    stored: PositionRow[] = rows,
  ): Promise<void> => {
    await imported(token, "positions", { positions: rows.map((r) => ({ portfolioId, date, ...r })) });
    accepted.positions.set(`${portfolioId}|${date}`, { portfolioId, date, positions: stored });
  };
  /** Waits until every table equals the API's answers (the replica is fed off the request path). */
  const converged = async (): Promise<void> => {
    await vi.waitFor(
      async () => {
        for (const [table, replica, api] of await replicaAndApi(token, bi, accepted))
          expect(replica, table).toEqual(api);
      },
      { timeout: 30_000, interval: 500 },
    );
  };

  beforeAll(async () => {
    token = await adminToken();
    details = await replicaSettings(token);
    bi = await biClient(details, await newLogin(token, "Power BI finance"));
  });
  afterAll(async () => {
    await bi?.end();
  });

  it("a write is in the replica within 10 s of the import's answer", async () => {
    const record = securityRecord({ ticker: "FAST" });
    await imported(token, "securities", { securities: [record] });
    const answered = Date.now();
    await vi.waitFor(
      async () =>
        expect((await bi.query("SELECT ticker FROM analytics.securities WHERE isin = $1", [record.isin])).rows).toEqual(
          [{ ticker: "FAST" }],
        ),
      { timeout: 10_000, interval: 100 },
    );
    expect(Date.now() - answered).toBeLessThan(10_000);
  });

  it("after imports, a provider file and valuation, every table equals the API's answers row by row", async () => {
    const [a, b] = [
      await createPortfolio(token, { baseCurrency: "EUR" }),
      await createPortfolio(token, { baseCurrency: "USD" }),
    ];
    const composite = await createPortfolio(token, { type: "composite", memberIds: [a.id, b.id], baseCurrency: "EUR" });
    Object.assign(ids, { a: a.id, b: b.id, composite: composite.id });
    const [s1, s2, s3] = await createSecurities(token, [
      securityRecord({ currency: "EUR", ticker: "ONE", cusip: "037833100", country: "DE", exchange: "XETR" }),
      securityRecord({ currency: "USD", assetClass: "bond" }),
      securityRecord({ currency: "EUR", name: "Never priced" }),
    ]);
    Object.assign(ids, { s1, s2, s3 });
    const fx = { baseCurrency: "USD", quoteCurrency: "EUR", date: "2024-03-01", rate: 0.923456789012, source: "ecb" };
    await imported(token, "fx-rates", { fxRates: [fx] });
    accepted.fxRates.push(fx);
    const isin = async (id: string): Promise<string> =>
      (await call("GET", `/api/v1/securities/${id}`, { token })).body.data.isin as string;
    await imported(token, "prices", {
      prices: [
        { isin: await isin(s1), date: "2024-03-01", price: 101.25, currency: "EUR", type: "close", source: "vendor" },
        {
          isin: await isin(s2),
          date: "2024-03-01",
          price: 99.123456789,
          currency: "USD",
          type: "close",
          source: "vendor",
        },
      ],
    });
    // A price arrives as a provider's file too (feed, inbound container, the same import path).
    const feed = await call("POST", "/api/v1/settings/feeds", {
      token,
      body: {
        name: "closing prices",
        provider: "Vendor",
        dataType: "prices",
        format: "csv",
        filePattern: "prices-*.csv",
        options: { delimiter: ";" },
        mapping: {
          isin: "ISIN",
          date: "Date",
          price: "Close",
          currency: "Ccy",
          type: { value: "close" },
          source: { value: "file" },
        },
        status: "live",
      },
    });
    expect(feed.status, feed.text).toBe(201);
    const feedId = feed.body.data.id as string;
    const file = `ISIN;Date;Close;Ccy\n${await isin(s1)};2024-03-04;102.5;EUR\n`;
    await BlobServiceClient.fromConnectionString(storageConnectionString())
      .getContainerClient("inbound")
      .getBlockBlobClient(`${feedId}/prices-1.csv`)
      .upload(file, file.length);
    await expect
      .poll(
        async () =>
          ((await call("GET", `/api/v1/jobs?feedId=${feedId}`, { token })).body.data as { status: string }[]).some(
            (j) => j.status === "completed",
          ),
        { timeout: 30_000, interval: 100, message: "the file's job completes" },
      )
      .toBe(true);
    await positions(a.id, "2024-03-01", [
      { securityId: s1, quantity: 10, costBasis: 1000.5, currency: "EUR" },
      { securityId: s2, quantity: 5.5 },
    ]);
    await positions(a.id, "2024-03-04", [{ securityId: s1, quantity: 12 }]);
    await positions(b.id, "2024-03-01", [
      { securityId: s2, quantity: 3 },
      { securityId: s3, quantity: 1 },
    ]);
    await imported(token, "transactions", {
      transactions: [
        {
          externalId: "T-1",
          portfolioId: a.id,
          securityId: s1,
          type: "buy",
          status: "pending",
          tradeDate: "2024-03-01",
          quantity: 2,
          price: 101.25,
          fees: 0.5,
          currency: "EUR",
        },
      ],
    });
    await whenValued(token, a.id, b.id, composite.id);

    await converged();
    const counts = Object.fromEntries((await replicaSettings(token)).tables.map((t) => [t.name, t.rows]));
    // Every table has rows: the comparison compared something everywhere.
    for (const [table, rows] of Object.entries(counts)) expect(rows, table).toBeGreaterThan(0);
  });

  it("updates are mirrored: a replaced snapshot's rows and the old valuation's holdings go, a settled transaction and a resolved exception change their rows", async () => {
    const heldOn = async (date: string): Promise<unknown[]> =>
      (
        await bi.query(
          "SELECT security_id FROM analytics.holdings WHERE portfolio_id = $1 AND date = $2 ORDER BY security_id",
          [ids.a, date],
        )
      ).rows.map((r: { security_id: string }) => r.security_id);
    expect(await heldOn("2024-03-01")).toEqual([ids.s1, ids.s2].sort());
    await positions(ids.a, "2024-03-01", [{ securityId: ids.s2, quantity: 7 }]);
    await imported(token, "transactions", {
      transactions: [
        {
          externalId: "T-1",
          portfolioId: ids.a,
          securityId: ids.s1,
          type: "buy",
          status: "settled",
          tradeDate: "2024-03-01",
          settlementDate: "2024-03-03",
          quantity: 2,
          price: 101.25,
          fees: 0.5,
          currency: "EUR",
        },
      ],
    });
    const missing = (
      (await call("GET", "/api/v1/exceptions?type=MISSING_PRICE&status=open", { token })).body.data as {
        id: string;
        entity: { id: string };
      }[]
    ).find((e) => e.entity.id === ids.s3);
    expect(missing).toBeDefined();
    expect(
      (await call("PATCH", `/api/v1/exceptions/${missing?.id ?? ""}`, { token, body: { status: "resolved" } })).status,
    ).toBe(200);
    expect((await call("PATCH", `/api/v1/portfolios/${ids.b}`, { token, body: { name: "Renamed" } })).status).toBe(200);
    await whenValued(token, ids.a, ids.composite);

    await converged();
    expect(
      (
        await bi.query(
          "SELECT security_id, quantity FROM analytics.positions WHERE portfolio_id = $1 AND date = '2024-03-01'",
          [ids.a],
        )
      ).rows,
    ).toEqual([{ security_id: ids.s2, quantity: 7 }]);
    expect(await heldOn("2024-03-01")).toEqual([ids.s2]);
    expect(
      (await bi.query("SELECT status, settlement_date FROM analytics.transactions WHERE external_id = 'T-1'")).rows,
    ).toEqual([{ status: "settled", settlement_date: "2024-03-03" }]);
    expect(
      (
        await bi.query("SELECT status FROM analytics.exceptions WHERE id = $1 AND resolved_at IS NOT NULL", [
          missing?.id,
        ])
      ).rows,
    ).toEqual([{ status: "resolved" }]);
  });

  it("time travel: the _versions tables' point-in-time WHERE gives, row for row, what the API answers with asAt", async () => {
    const clientId = `tt-${Date.now()}`;
    const portfolio = await createPortfolio(token, { baseCurrency: "EUR", clientId });
    const record = securityRecord({ currency: "EUR" });
    const [security] = await createSecurities(token, [record]);
    const price = (value: number) => ({
      isin: record.isin,
      date: "2024-04-02",
      price: value,
      currency: "EUR",
      type: "close",
      source: "bi",
    });
    await imported(token, "prices", { prices: [price(20)] });
    await positions(portfolio.id, "2024-04-02", [{ securityId: security, quantity: 3 }]);
    const trade = {
      externalId: `TT-${Date.now()}`,
      portfolioId: portfolio.id,
      securityId: security,
      type: "buy",
      status: "pending",
      tradeDate: "2024-04-02",
      quantity: 3,
      price: 20,
      currency: "EUR",
    };
    await imported(token, "transactions", { transactions: [trade] });
    await whenValued(token, portfolio.id);
    const T1 = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await imported(token, "prices", { prices: [price(21)] });
    await imported(token, "transactions", { transactions: [{ ...trade, status: "settled", fees: 1 }] });
    expect(
      (await call("PATCH", `/api/v1/portfolios/${portfolio.id}`, { token, body: { name: "Travelled" } })).status,
    ).toBe(200);
    await positions(portfolio.id, "2024-04-02", [{ securityId: security, quantity: 4 }]);
    await whenValued(token, portfolio.id);
    const now = new Date().toISOString();

    /** The rows current at `at` in a version table, as a BI user writes the WHERE. */
    const asAt = async (sql: string, params: unknown[], at: string) =>
      (
        await bi.query(
          `${sql} AND recorded_from <= $${params.length + 1} AND (recorded_to IS NULL OR recorded_to > $${params.length + 1})`,
          [...params, at],
        )
      ).rows;
    const api = async (path: string, at: string) =>
      (await call("GET", `${path}${path.includes("?") ? "&" : "?"}asAt=${encodeURIComponent(at)}`, { token })).body
        .data;
    for (const at of [T1, now]) {
      await vi.waitFor(
        async () => {
          const prices = await asAt(
            "SELECT date, type, source, price FROM analytics.prices_versions WHERE security_id = $1",
            [security],
            at,
          );
          expect(prices).toEqual(
            (await api(`/api/v1/securities/${security}/prices`, at)).map(
              (p: { date: string; type: string; source: string; price: number }) => ({
                date: p.date,
                type: p.type,
                source: p.source,
                price: p.price,
              }),
            ),
          );
          const portfolios = await asAt(
            "SELECT id, name, total_value, latest_valuation_date FROM analytics.portfolios_versions WHERE client_id = $1",
            [clientId],
            at,
          );
          expect(portfolios).toEqual(
            (await api(`/api/v1/portfolios?clientId=${clientId}`, at)).map(
              (p: { id: string; name: string; totalValue: number; latestValuationDate: string }) => ({
                id: p.id,
                name: p.name,
                total_value: p.totalValue,
                latest_valuation_date: p.latestValuationDate,
              }),
            ),
          );
          const transactions = await asAt(
            "SELECT id, status, fees, net_amount FROM analytics.transactions_versions WHERE portfolio_id = $1",
            [portfolio.id],
            at,
          );
          expect(transactions).toEqual(
            (await api(`/api/v1/transactions?portfolioId=${portfolio.id}`, at)).map(
              (t: { id: string; status: string; fees: number | null; netAmount: number }) => ({
                id: t.id,
                status: t.status,
                fees: t.fees,
                net_amount: t.netAmount,
              }),
            ),
          );
          const held = await asAt(
            "SELECT security_id, quantity FROM analytics.positions_versions WHERE portfolio_id = $1",
            [portfolio.id],
            at,
          );
          expect(held).toEqual([{ security_id: security, quantity: at === T1 ? 3 : 4 }]);
        },
        { timeout: 30_000, interval: 500 },
      );
    }
    // Each version says who recorded it; the replaced ones say until when. The replaced versions' rows
    // come from their own change feed (the versions container's), so they may arrive after the current one.
    type Row = { version: number; name: string; recorded_by: string; current: boolean };
    const history = await vi.waitFor(
      async () => {
        const rows = (
          await bi.query(
            "SELECT version, name, recorded_by, recorded_to IS NULL AS current FROM analytics.portfolios_versions WHERE id = $1 ORDER BY version",
            [portfolio.id],
          )
        ).rows as Row[];
        expect(rows.map((h) => Number(h.version))).toEqual(rows.map((_, i) => i + 1));
        expect(rows.filter((h) => h.current)).toHaveLength(1);
        return rows;
      },
      { timeout: 30_000, interval: 500 },
    );
    expect(history.at(-1)?.name).toBe("Travelled");
    expect(new Set(history.map((h) => h.recorded_by))).toEqual(new Set(["test-admin", "system"]));
  });

  it("valuations say whether they are complete (one WHERE leaves the rest out); holdings say why one is unvalued and how each was converted; a shrunk snapshot's holding goes", async () => {
    const c = await createPortfolio(token, { baseCurrency: "GBP" });
    const fx = { baseCurrency: "USD", quoteCurrency: "GBP", date: "2024-03-01", rate: 0.79, source: "ecb" };
    await imported(token, "fx-rates", { fxRates: [fx] });
    accepted.fxRates.push(fx);
    await positions(c.id, "2024-03-01", [
      { securityId: ids.s1, quantity: 2, costBasis: 150, currency: "EUR" },
      { securityId: ids.s3, quantity: 1 },
    ]);
    await whenValued(token, c.id, ids.a, ids.b, ids.composite);
    await converged();
    const complete = async (): Promise<unknown[]> =>
      (
        await bi.query(
          "SELECT portfolio_id FROM analytics.valuations WHERE complete AND date = '2024-03-01' AND portfolio_id = ANY($1) ORDER BY portfolio_id",
          [[ids.a, ids.b, c.id]],
        )
      ).rows.map((r: { portfolio_id: string }) => r.portfolio_id);
    // a holds s2 only (priced); b and c hold the never priced s3.
    expect(await complete()).toEqual([ids.a]);
    expect(
      (
        await bi.query(
          "SELECT complete, unvalued_count FROM analytics.valuations WHERE portfolio_id = $1 AND date = '2024-03-01'",
          [c.id],
        )
      ).rows,
    ).toEqual([{ complete: false, unvalued_count: 1 }]);
    const holdingsOfC = async (): Promise<unknown[]> =>
      (
        await bi.query(
          "SELECT security_id, fx_method, fx_pivot, market_value IS NULL AS unvalued_value, unvalued FROM analytics.holdings WHERE portfolio_id = $1 AND date = '2024-03-01' ORDER BY security_id",
          [c.id],
        )
      ).rows;
    // s1 (EUR) into GBP: EUR → USD (inverse of USDEUR) → GBP, a cross through USD.
    expect(await holdingsOfC()).toEqual(
      [
        { security_id: ids.s1, fx_method: "cross", fx_pivot: "USD", unvalued_value: false, unvalued: null },
        { security_id: ids.s3, fx_method: null, fx_pivot: null, unvalued_value: true, unvalued: "MISSING_PRICE" },
      ].sort((x, y) => (x.security_id < y.security_id ? -1 : 1)),
    );

    // The same snapshot without s3, s1 unchanged: s3's holding goes, the valuation is complete. s1's
    // record leaves its cost basis out, so the position keeps it.
    await positions(
      c.id,
      "2024-03-01",
      [{ securityId: ids.s1, quantity: 2 }],
      [{ securityId: ids.s1, quantity: 2, costBasis: 150, currency: "EUR" }],
    );
    await whenValued(token, c.id);
    await converged();
    expect(await holdingsOfC()).toEqual([
      { security_id: ids.s1, fx_method: "cross", fx_pivot: "USD", unvalued_value: false, unvalued: null },
    ]);
    // The removed position's row in positions_versions is closed with the snapshot's version it was in:
    // as at now, the portfolio-date holds s1 only, as the API's asAt says.
    await vi.waitFor(
      async () => {
        const current = (
          await bi.query(
            "SELECT security_id FROM analytics.positions_versions WHERE portfolio_id = $1 AND date = '2024-03-01' AND recorded_to IS NULL",
            [c.id],
          )
        ).rows.map((r: { security_id: string }) => r.security_id);
        expect(current).toEqual([ids.s1]);
        const s3 = (
          await bi.query(
            "SELECT recorded_to IS NOT NULL AS closed FROM analytics.positions_versions WHERE portfolio_id = $1 AND date = '2024-03-01' AND security_id = $2",
            [c.id, ids.s3],
          )
        ).rows;
        expect(s3).toEqual([{ closed: true }]);
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(await complete()).toEqual([ids.a, c.id].sort());
    const costOfC = async (): Promise<unknown[]> =>
      (
        await bi.query(
          "SELECT security_id, cost_basis, currency FROM analytics.positions WHERE portfolio_id = $1 AND date = '2024-03-01'",
          [c.id],
        )
      ).rows;
    expect(await costOfC()).toEqual([{ security_id: ids.s1, cost_basis: 150, currency: "EUR" }]);
    // An explicit null clears it.
    await positions(c.id, "2024-03-01", [{ securityId: ids.s1, quantity: 2, costBasis: null, currency: null }]);
    await converged();
    expect(await costOfC()).toEqual([{ security_id: ids.s1, cost_basis: null, currency: null }]);
  }, 120_000);

  it("numbers are exact decimals (numeric, never float), dates are dates, timestamps carry their time zone", async () => {
    const { rows } = await bi.query<{ table_name: string; column_name: string; data_type: string }>(
      "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'analytics'",
    );
    const typeOf = (table: string, column: string): string | undefined =>
      rows.find((r) => r.table_name === table && r.column_name === column)?.data_type;
    expect(rows.map((r) => r.data_type)).not.toContain("double precision");
    expect(rows.map((r) => r.data_type)).not.toContain("real");
    for (const [table, column] of [
      ["prices", "price"],
      ["fx_rates", "rate"],
      ["holdings", "market_value"],
      ["positions", "quantity"],
      ["transactions", "net_amount"],
      ["portfolios", "total_value"],
    ] as const)
      expect(typeOf(table, column), `${table}.${column}`).toBe("numeric");
    expect(typeOf("prices", "date")).toBe("date");
    expect(typeOf("transactions", "created_at")).toBe("timestamp with time zone");
    // The decimal text itself, not a float's rendering: 99.123456789 is stored as exactly that.
    const { rows: exact } = await bi.query<{ price: string }>(
      "SELECT price::text AS price FROM analytics.prices WHERE security_id = $1",
      [ids.s2],
    );
    expect(exact.map((r) => r.price.replace(/0+$/, ""))).toEqual(["99.123456789"]);
  });

  it("a login reads analytics and nothing else: writes, DDL, temporary tables, large objects, advisory locks, notifications, WAL messages, row locks, other schemas and databases are refused by the database, even in a read-write transaction", async () => {
    const refused = async (statement: string, client: Client = bi): Promise<void> => {
      await expect(client.query(statement), statement).rejects.toMatchObject({ code: "42501" });
    };
    await refused(
      "INSERT INTO analytics.jobs (id, source, data_type, status, received, accepted, rejected, started_at) VALUES ('x', 'api', 'prices', 'completed', 0, 0, 0, now())",
    );
    await refused("UPDATE analytics.portfolios SET name = 'changed'");
    await refused("DELETE FROM analytics.prices");
    await refused("TRUNCATE analytics.prices");
    await refused("CREATE TABLE analytics.mine (a int)");
    await refused("ALTER TABLE analytics.jobs ADD COLUMN mine int");
    await refused("DROP TABLE analytics.jobs");
    await refused("CREATE SCHEMA mine");
    await refused("CREATE TABLE public.mine (a int)");
    await refused("CREATE TEMPORARY TABLE mine (a int)");
    await refused("CREATE VIEW analytics.mine AS SELECT 1");
    await refused("CREATE FUNCTION analytics.mine() RETURNS int LANGUAGE sql AS 'SELECT 1'");
    await refused("COMMENT ON TABLE analytics.prices IS 'mine'");
    await refused("SELECT * FROM replica.documents");
    await refused("SELECT * FROM replica.logins");
    // Writes that are not INSERT/UPDATE/DELETE: large objects, WAL messages, shared locks, the notification queue.
    await refused("SELECT lo_from_bytea(0, 'data that would stay')");
    await refused("SELECT lo_create(0)");
    await refused("SELECT lo_import('/etc/hostname')");
    await refused("SELECT pg_logical_emit_message(true, 'x', 'unbounded')");
    await refused("SELECT pg_advisory_lock(1)");
    await refused("SELECT pg_try_advisory_lock(1, 2)");
    await refused("SELECT pg_advisory_xact_lock_shared(1)");
    await refused("SELECT pg_notify('channel', 'payload')");
    await refused("SELECT pg_current_xact_id()");
    await refused("SELECT * FROM analytics.prices FOR UPDATE");
    await refused("SELECT * FROM analytics.prices FOR SHARE");
    await bi.query("BEGIN");
    await refused("LOCK TABLE analytics.prices IN EXCLUSIVE MODE");
    await bi.query("ROLLBACK");
    await bi.query("BEGIN READ WRITE");
    await refused("DELETE FROM analytics.prices");
    await bi.query("ROLLBACK");
    // What it may change of itself lifts nothing: not its connection limit, not its rights.
    const self = (await bi.query<{ u: string }>("SELECT current_user AS u")).rows[0]?.u ?? "";
    await refused(`ALTER ROLE "${self}" CONNECTION LIMIT 100`);
    await refused(`ALTER ROLE "${self}" SUPERUSER`);
    await refused(`ALTER ROLE "${self}" CREATEROLE`);
    await refused(`GRANT replica_reader TO "${self}"`);
    expect((await bi.query("SELECT count(*) AS n FROM analytics.prices")).rows[0]).toEqual({
      n: expect.any(Number) as number,
    });
    const login = await newLogin(token, "other databases");
    for (const database of ["postgres", "template1"])
      await expect(biClient({ ...details, database }, login)).rejects.toMatchObject({ code: "42501" });
    // Its own session defaults and password are every role's to change in PostgreSQL: changed, they grant no write.
    const own = await biClient(details, login);
    await own.query(`ALTER ROLE "${login.username}" SET default_transaction_read_only = off`);
    await own.query(`ALTER ROLE "${login.username}" PASSWORD 'Another-password-1234'`);
    await own.end();
    const again = await biClient(details, { ...login, password: "Another-password-1234" });
    await refused("DELETE FROM analytics.prices", again);
    await refused("SELECT lo_from_bytea(0, 'x')", again);
    await again.end();
  });

  it("logins are listed without passwords; a rotated password replaces the old one; a deleted login can no longer connect and its session ends", async () => {
    const login = await newLogin(token, "Excel");
    const listed = await call("GET", "/api/v1/settings/replica/logins", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual({
      id: login.id,
      name: "Excel",
      username: login.username,
      connectionLimit: 10,
      statementTimeoutSeconds: 60,
      createdAt: expect.any(String) as string,
      updatedAt: expect.any(String) as string,
    });
    expect(listed.text).not.toContain(login.password);
    expect(listed.text).not.toMatch(/"password"/);

    const before = await biClient(details, login);
    expect((await before.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    const rotated = await call("POST", `/api/v1/settings/replica/logins/${login.id}/rotate-password`, { token });
    expect(rotated.status, rotated.text).toBe(200);
    // The session the old password opened ends with it.
    await expect(before.query("SELECT 1")).rejects.toThrow();
    await before.end().catch(() => undefined);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const fresh = rotated.body.data as { username: string; password: string };
    expect(fresh.password).not.toBe(login.password);
    await expect(biClient(details, login)).rejects.toMatchObject({ code: "28P01" });
    const session = await biClient(details, fresh);
    expect((await session.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);

    expect((await call("DELETE", `/api/v1/settings/replica/logins/${login.id}`, { token })).status).toBe(204);
    await expect(session.query("SELECT 1")).rejects.toThrow();
    await session.end().catch(() => undefined);
    await expect(biClient(details, fresh)).rejects.toMatchObject({ code: "28P01" });
    expect((await call("DELETE", `/api/v1/settings/replica/logins/${login.id}`, { token })).status).toBe(404);
    expect((await call("POST", `/api/v1/settings/replica/logins/${login.id}/rotate-password`, { token })).status).toBe(
      404,
    );

    const invalid = await call("POST", "/api/v1/settings/replica/logins", { token, body: { name: "" } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details[0].field).toBe("name");
  });

  it("each login has a connection limit and a statement time limit (defaults 10 and 60 s), set at creation and by PATCH, validated", async () => {
    const created = await call("POST", "/api/v1/settings/replica/logins", {
      token,
      body: { name: "Tableau", connectionLimit: 4, statementTimeoutSeconds: 300 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ name: "Tableau", connectionLimit: 4, statementTimeoutSeconds: 300 });
    const id = created.body.data.id as string;
    const patched = await call("PATCH", `/api/v1/settings/replica/logins/${id}`, {
      token,
      body: { statementTimeoutSeconds: 120 },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ id, connectionLimit: 4, statementTimeoutSeconds: 120 });
    const listed = (await call("GET", "/api/v1/settings/replica/logins", { token })).body.data as { id: string }[];
    expect(listed.find((l) => l.id === id)).toMatchObject({ connectionLimit: 4, statementTimeoutSeconds: 120 });
    for (const [body, field] of [
      [{ connectionLimit: 0 }, "connectionLimit"],
      [{ statementTimeoutSeconds: 3601 }, "statementTimeoutSeconds"],
      [{ connectionLimit: 1.5 }, "connectionLimit"],
      [{ name: "renamed" }, ""],
    ] as const) {
      const reply = await call("PATCH", `/api/v1/settings/replica/logins/${id}`, { token, body });
      expect(reply.status, JSON.stringify(body)).toBe(422);
      if (field !== "") expect(reply.body.error.details[0].field).toBe(field);
    }
    expect((await call("PATCH", `/api/v1/settings/replica/logins/${id}`, { token, body: {} })).status).toBe(422);
    expect(
      (await call("PATCH", "/api/v1/settings/replica/logins/rl_missing", { token, body: { connectionLimit: 2 } }))
        .status,
    ).toBe(404);
  });

  it("one login cannot take every connection: its limit + 1 is refused while other logins still connect; a lowered limit ends its newest sessions", async () => {
    const created = await call("POST", "/api/v1/settings/replica/logins", {
      token,
      body: { name: "Greedy", connectionLimit: 2 },
    });
    expect(created.status, created.text).toBe(201);
    const greedy = created.body.data as { id: string; username: string; password: string };
    const first = await biClient(details, greedy);
    const second = await biClient(details, greedy);
    await expect(biClient(details, greedy)).rejects.toMatchObject({ code: "53300" });
    const other = await biClient(details, await newLogin(token, "Still connects"));
    expect((await other.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await other.end();

    const lowered = await call("PATCH", `/api/v1/settings/replica/logins/${greedy.id}`, {
      token,
      body: { connectionLimit: 1 },
    });
    expect(lowered.status, lowered.text).toBe(200);
    // The watchdog (a timer every 5 s) ends the newest session beyond the new limit; the oldest stays.
    await vi.waitFor(() => expect(second.query("SELECT 1")).rejects.toThrow(), { timeout: 20_000, interval: 500 });
    expect((await first.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await expect(biClient(details, greedy)).rejects.toMatchObject({ code: "53300" });
    await first.end();
    await second.end().catch(() => undefined);
  });

  it("a statement past its login's time limit is stopped, even after SET statement_timeout = 0 and ALTER ROLE self SET statement_timeout = 0", async () => {
    const created = await call("POST", "/api/v1/settings/replica/logins", {
      token,
      body: { name: "Slow", statementTimeoutSeconds: 2 },
    });
    expect(created.status, created.text).toBe(201);
    const slow = created.body.data as { username: string; password: string };
    const session = await biClient(details, slow);
    expect((await session.query("SHOW statement_timeout")).rows).toEqual([{ statement_timeout: "2s" }]);
    // Lifting the limit for this session and as its own default: every PostgreSQL role may.
    await session.query("SET statement_timeout = 0");
    await session.query(`ALTER ROLE "${slow.username}" SET statement_timeout = 0`);
    const started = Date.now();
    await expect(session.query("SELECT pg_sleep(120)")).rejects.toMatchObject({ code: "57014" });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(30_000);
    await session.end();
    // The watchdog put its default back: a new session starts limited again.
    await vi.waitFor(
      async () => {
        const fresh = await biClient(details, slow);
        try {
          expect((await fresh.query("SHOW statement_timeout")).rows).toEqual([{ statement_timeout: "2s" }]);
        } finally {
          await fresh.end();
        }
      },
      { timeout: 20_000, interval: 500 },
    );
  }, 60_000);

  it("as a BI tool sees it: every table, view, function and column described in the catalogue (the table reference's words), foreign keys to portfolios and securities, and the views of latest holdings and holdings as of a date", async () => {
    const described = new Map(
      (
        await bi.query<{ object: string; column: string | null; description: string | null }>(
          `SELECT c.relname AS object, NULL AS column, obj_description(c.oid, 'pg_class') AS description
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'analytics' AND c.relkind IN ('r', 'v')
           UNION ALL
           SELECT c.relname, a.attname, col_description(c.oid, a.attnum)
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
             WHERE n.nspname = 'analytics' AND c.relkind IN ('r', 'v')
           UNION ALL
           SELECT p.proname, NULL, obj_description(p.oid, 'pg_proc')
             FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'analytics'`,
        )
      ).rows.map((r) => [`${r.object}.${r.column ?? ""}`, r.description]),
    );
    const plain = (text: string): string => text.replace(/`/g, "");
    for (const table of biTables) {
      expect(described.get(`${table.name}.`), table.name).toBe(plain(table.description));
      for (const column of table.columns)
        expect(described.get(`${table.name}.${column.name}`), `${table.name}.${column.name}`).toBe(
          plain(column.description),
        );
    }
    for (const [key, description] of described)
      expect(description, `${key} has a description`).toEqual(expect.any(String));

    // The keys, through information_schema as BI tools read them (referencing column → referenced column).
    const { rows: keys } = await bi.query<{ from: string; to: string }>(
      `SELECT k.table_name || '.' || k.column_name AS "from", u.table_name || '.' || u.column_name AS "to"
         FROM information_schema.referential_constraints r
         JOIN information_schema.key_column_usage k ON k.constraint_name = r.constraint_name AND k.constraint_schema = r.constraint_schema
         JOIN information_schema.key_column_usage u ON u.constraint_name = r.unique_constraint_name AND u.constraint_schema = r.unique_constraint_schema
           AND u.ordinal_position = k.position_in_unique_constraint
        WHERE r.constraint_schema = 'analytics' ORDER BY 1`,
    );
    expect(keys).toEqual(
      [
        ["holdings.portfolio_id", "portfolios.id"],
        ["holdings.security_id", "securities.id"],
        ["positions.portfolio_id", "portfolios.id"],
        ["positions.security_id", "securities.id"],
        // A version names the same portfolio and security as its record.
        ["positions_versions.portfolio_id", "portfolios.id"],
        ["positions_versions.security_id", "securities.id"],
        ["prices.security_id", "securities.id"],
        ["prices_versions.security_id", "securities.id"],
        ["transactions.portfolio_id", "portfolios.id"],
        ["transactions.security_id", "securities.id"],
        ["transactions_versions.portfolio_id", "portfolios.id"],
        ["transactions_versions.security_id", "securities.id"],
        ["valuations.portfolio_id", "portfolios.id"],
      ].map(([from, to]) => ({ from, to })),
    );
    // Declared, not enforced: the replica is fed per container, a holding may arrive before its security.
    expect(
      (
        await bi.query(
          "SELECT DISTINCT conenforced FROM pg_constraint WHERE contype = 'f' AND connamespace = 'analytics'::regnamespace",
        )
      ).rows,
    ).toEqual([{ conenforced: false }]);
    expect(
      (await bi.query("SELECT table_name FROM information_schema.views WHERE table_schema = 'analytics'")).rows,
    ).toEqual([{ table_name: "latest_holdings" }]);
    expect(
      (await bi.query("SELECT routine_name FROM information_schema.routines WHERE routine_schema = 'analytics'")).rows,
    ).toEqual([{ routine_name: "holdings_as_of" }]);

    // What they answer: the API's holdings of each portfolio's latest valuation, and as of a date, named.
    const shown = (view: {
      holdings: {
        securityId: string;
        quantity: number;
        marketValue: number | null;
        name: string;
        assetClass: string;
      }[];
    }) =>
      view.holdings
        .map((h) => ({
          security_id: h.securityId,
          security_name: h.name,
          asset_class: h.assetClass,
          quantity: h.quantity,
          market_value: h.marketValue,
        }))
        .sort((x, y) => (x.security_id < y.security_id ? -1 : 1));
    const latest = await holdingsOf(token, ids.a);
    expect(
      (
        await bi.query(
          "SELECT security_id, security_name, asset_class, quantity, market_value FROM analytics.latest_holdings WHERE portfolio_id = $1 ORDER BY security_id",
          [ids.a],
        )
      ).rows,
    ).toEqual(shown(latest));
    expect(
      (await bi.query("SELECT DISTINCT date FROM analytics.latest_holdings WHERE portfolio_id = $1", [ids.a])).rows,
    ).toEqual([{ date: latest.date }]);
    const asOf = await holdingsOf(token, ids.a, "date=2024-03-01");
    expect(
      (
        await bi.query(
          "SELECT security_id, security_name, asset_class, quantity, market_value FROM analytics.holdings_as_of('2024-03-03') WHERE portfolio_id = $1 ORDER BY security_id",
          [ids.a],
        )
      ).rows,
    ).toEqual(shown(asOf));
  });

  it("one document never halts the replica: documents no engine can hold (NUL in a name, a year-0 date, a number beyond its column) are skipped with a REPLICA_REJECTED exception, and the rows after them still arrive", async () => {
    // Written straight into the Cosmos stand-in, as data stored before the API refused such values.
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const database = cosmos.database("investment-data");
    const { resource: portfolio } = await database
      .container("portfolios")
      .item(ids.b, ids.b)
      .read<Record<string, unknown>>();
    const { resources: prices } = await database
      .container("prices")
      .items.query<Record<string, unknown>>({
        query: "SELECT * FROM c WHERE c.securityId = @s AND c.docType = 'price'",
        parameters: [{ name: "@s", value: ids.s1 }],
      })
      .fetchAll();
    const price = prices[0];
    expect(portfolio).toBeDefined();
    expect(price).toBeDefined();
    const strip = ({ _rid, _self, _etag, _attachments, _ts, ...doc }: Record<string, unknown>) => doc;
    await database.container("portfolios").items.upsert({ ...strip(portfolio ?? {}), name: "Poisoned\u0000name" });
    const poisoned = [
      { ...strip(price ?? {}), id: "0000-01-01|close|poison", date: "0000-01-01", source: "poison" },
      { ...strip(price ?? {}), id: "2024-03-06|close|poison", date: "2024-03-06", source: "poison", price: 1e40 },
    ];
    for (const doc of poisoned) await database.container("prices").items.upsert(doc);
    // After them, ordinary writes through the API.
    const after = securityRecord({ ticker: "AFTER" });
    await imported(token, "securities", { securities: [after] });
    await imported(token, "prices", {
      prices: [{ isin: after.isin, date: "2024-03-07", price: 12.5, currency: "EUR", type: "close", source: "vendor" }],
    });
    await vi.waitFor(
      async () =>
        expect(
          (await bi.query("SELECT price FROM analytics.prices WHERE isin = $1 AND date = '2024-03-07'", [after.isin]))
            .rows,
        ).toEqual([{ price: 12.5 }]),
      { timeout: 30_000, interval: 250 },
    );
    const rejected = await vi.waitFor(
      async () => {
        const reply = await call("GET", "/api/v1/exceptions?type=REPLICA_REJECTED&pageSize=200", { token });
        expect(reply.status, reply.text).toBe(200);
        const list = reply.body.data as { entity: { type: string; id: string }; message: string; severity: string }[];
        expect(list).toHaveLength(3);
        return list;
      },
      { timeout: 30_000, interval: 500 },
    );
    const about = (id: string) => rejected.find((e) => e.entity.id === id);
    expect(about(ids.b)).toMatchObject({ entity: { type: "portfolio" }, severity: "error" });
    expect(about(ids.b)?.message).toContain("portfolios.name holds a NUL character");
    expect(about(`${ids.s1}|0000-01-01|close|poison`)?.message).toMatch(
      /date\/time field value out of range: "0000-01-01"/,
    );
    expect(about(`${ids.s1}|2024-03-06|close|poison`)?.message).toContain(
      "prices.price 1e+40 is beyond decimal(38, 12)",
    );
    // The portfolio keeps its previous version in the replica; the refused prices are not there.
    expect((await bi.query("SELECT name FROM analytics.portfolios WHERE id = $1", [ids.b])).rows).toEqual([
      { name: "Renamed" },
    ]);
    expect((await bi.query("SELECT count(*)::int AS n FROM analytics.prices WHERE source = 'poison'")).rows).toEqual([
      { n: 0 },
    ]);
  });

  it("the settings answer gives the connection details, status current with no lag, and the tables' row counts", async () => {
    let settings = await replicaSettings(token);
    await vi.waitFor(
      async () => {
        settings = await replicaSettings(token);
        expect(settings.status).toBe("current");
      },
      { timeout: 20_000, interval: 500 },
    );
    expect(settings).toMatchObject({
      engine: "postgres",
      host: "127.0.0.1",
      database: "analytics",
      schema: "analytics",
      authentication: ["password"],
      lagSeconds: 0,
    });
    expect(settings.documents?.projected).toBe(settings.documents?.stored);
    for (const { name, rows } of settings.tables)
      expect(Number((await bi.query(`SELECT count(*) AS n FROM analytics.${name}`)).rows[0]?.n), name).toBe(rows);
  });
});
