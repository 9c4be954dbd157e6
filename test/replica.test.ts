import { BlobServiceClient } from "@azure/storage-blob";
import type { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminToken, call, storageConnectionString, useOwnRuntime } from "./http";
import { createPortfolio, createSecurities, imported, securityRecord, whenValued } from "./investment-fixtures";
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

  it("a login reads analytics and nothing else: writes, DDL, temporary tables, other schemas and databases are refused by the database, even in a read-write transaction", async () => {
    const refused = async (statement: string): Promise<void> => {
      await expect(bi.query(statement), statement).rejects.toMatchObject({ code: "42501" });
    };
    await refused(
      "INSERT INTO analytics.jobs (id, source, data_type, status, received, accepted, rejected, started_at) VALUES ('x', 'api', 'prices', 'completed', 0, 0, 0, now())",
    );
    await refused("UPDATE analytics.portfolios SET name = 'changed'");
    await refused("DELETE FROM analytics.prices");
    await refused("CREATE TABLE analytics.mine (a int)");
    await refused("ALTER TABLE analytics.jobs ADD COLUMN mine int");
    await refused("DROP TABLE analytics.jobs");
    await refused("CREATE SCHEMA mine");
    await refused("CREATE TABLE public.mine (a int)");
    await refused("CREATE TEMPORARY TABLE mine (a int)");
    await refused("SELECT * FROM replica.documents");
    await bi.query("BEGIN READ WRITE");
    await refused("DELETE FROM analytics.prices");
    await bi.query("ROLLBACK");
    expect((await bi.query("SELECT count(*) AS n FROM analytics.prices")).rows[0]).toEqual({
      n: expect.any(Number) as number,
    });
    const login = await newLogin(token, "other databases");
    for (const database of ["postgres", "template1"])
      await expect(biClient({ ...details, database }, login)).rejects.toMatchObject({ code: "42501" });
  });

  it("logins are listed without passwords; a rotated password replaces the old one; a deleted login can no longer connect and its session ends", async () => {
    const login = await newLogin(token, "Excel");
    const listed = await call("GET", "/api/v1/settings/replica/logins", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual({
      id: login.id,
      name: "Excel",
      username: login.username,
      createdAt: expect.any(String) as string,
      updatedAt: expect.any(String) as string,
    });
    expect(listed.text).not.toContain(login.password);
    expect(listed.text).not.toMatch(/"password"/);

    const rotated = await call("POST", `/api/v1/settings/replica/logins/${login.id}/rotate-password`, { token });
    expect(rotated.status, rotated.text).toBe(200);
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
