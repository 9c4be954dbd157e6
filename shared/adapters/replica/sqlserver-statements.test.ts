import { DummyDriver, Kysely, MssqlAdapter, MssqlIntrospector, MssqlQueryCompiler, type Compilable } from "kysely";
import { describe, expect, it } from "vitest";
import { tableDefinition } from "../../domain/replica/replica-tables";
import type { ReplicaDatabase } from "./replica-sql";
import { emptyCatalog, type Catalog, type CatalogColumn } from "./replica-catalog";
import { migrationPlan } from "./replica-migration";
import { readerGrants } from "./replica-schema";
import { allTables } from "../../domain/replica/replica-tables";
import {
  appliedPerSource,
  chunksOf,
  closedKeys,
  closeVersion,
  copyStagedRuns,
  countRows,
  deleteGroups,
  deleteHoldings,
  dropStagedRuns,
  insertRows,
  mergeSources,
  mergeVersions,
  stagedRuns,
} from "./replica-statements";
import { sqlServerLoginStatements } from "./sqlserver-replica-logins";

/**
 * The T-SQL Azure SQL Database receives, compiled by Kysely's SQL Server dialect without a server: no
 * SQL Server runs here, so this snapshot is what review checks (the same statements run on PostgreSQL
 * in every integration test).
 */
const db = new Kysely<ReplicaDatabase>({
  dialect: {
    createAdapter: () => new MssqlAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new MssqlIntrospector(k),
    createQueryCompiler: () => new MssqlQueryCompiler(),
  },
});
const tsql = (q: Compilable) => {
  const compiled = q.compile();
  return { sql: compiled.sql, parameters: compiled.parameters };
};

describe("replica statements as T-SQL (Azure SQL Database)", () => {
  it("the version guard: MERGE that applies only newer versions and outputs the documents it changed, with $action; the containers' progress added up", () => {
    const q = mergeVersions(db, "sqlserver", [{ doc_key: Buffer.alloc(32, 0xab), version: 17 }]);
    expect(tsql(q)).toMatchSnapshot();
    const progress = mergeSources(db, "sqlserver", [
      { container: "prices", documents: 3, newest_ts: 1_700_000_000, last_projected_at: "2024-03-01T10:00:00.123Z" },
    ]);
    expect(tsql(progress)).toMatchSnapshot();
  });

  it("version tables: which open versions are closed already, and a version closed where still open", () => {
    const prices = tableDefinition("analytics", "prices_versions");
    const key = { security_id: "s1", date: "2024-03-01", type: "close", source: "v" };
    expect(tsql(closedKeys(db, "sqlserver", prices, [{ ...key, version: 2 }]))).toMatchSnapshot();
    expect(
      tsql(closeVersion(db, "sqlserver", { table: prices, key, version: 1, at: "2024-03-02T10:00:00.123Z" })),
    ).toMatchSnapshot();
  });

  it("replacing a document's rows: delete its groups, insert its rows (timestamps sent as UTC datetime2 text)", () => {
    const positions = tableDefinition("analytics", "positions");
    expect(
      tsql(deleteGroups(db, "sqlserver", positions, [{ portfolio_id: "p1", date: "2024-03-01" }])),
    ).toMatchSnapshot();
    expect(
      tsql(
        insertRows(db, "sqlserver", positions, [
          {
            portfolio_id: "p1",
            security_id: "s1",
            date: "2024-03-01",
            quantity: "0.1",
            cost_basis: null,
            currency: null,
          },
        ]),
      ),
    ).toMatchSnapshot();
    const portfolios = tableDefinition("analytics", "portfolios");
    const row = {
      id: "p",
      name: "n",
      code: "C",
      client_id: "c",
      base_currency: "EUR",
      type: "standard",
      status: "active",
      total_value: "1.5",
      latest_valuation_date: "2024-03-01",
      created_at: "2024-01-01T00:00:00.000Z",
      updated_at: "2024-03-01T10:00:00.123Z",
    };
    expect(tsql(insertRows(db, "sqlserver", portfolios, [row])).parameters).toContain("2024-03-01T10:00:00.123");
  });

  it("holdings of a valuation header: staged runs found, superseded runs dropped, the run's rows copied in", () => {
    const run = { portfolioId: "p1", date: "2024-03-01", runId: "run-2" };
    expect(tsql(stagedRuns(db, [run]))).toMatchSnapshot();
    expect(tsql(dropStagedRuns(db, [{ ...run, runId: "run-1" }]))).toMatchSnapshot();
    expect(tsql(deleteHoldings(db, "sqlserver", [run]))).toMatchSnapshot();
    expect(tsql(copyStagedRuns(db, [run]))).toMatchSnapshot();
  });

  it("what the settings answer reads: row counts and what was applied per source container", () => {
    expect(tsql(countRows(db, tableDefinition("analytics", "prices")))).toMatchSnapshot();
    expect(tsql(appliedPerSource(db))).toMatchSnapshot();
  });

  it("the schema, created on first use, with datetime2(3), nvarchar and decimal(38, s), foreign keys added unchecked and disabled, the views, every description, and the reader role's grants", () => {
    const ddl = migrationPlan(db, "sqlserver", emptyCatalog);
    expect(ddl).toMatchSnapshot();
    expect(ddl).toContain(
      `ALTER TABLE "analytics"."holdings" WITH NOCHECK ADD CONSTRAINT "fk_holdings_security_id" FOREIGN KEY ("security_id") REFERENCES "analytics"."securities" ("id")`,
    );
    expect(ddl).toContain(`ALTER TABLE "analytics"."holdings" NOCHECK CONSTRAINT "fk_holdings_security_id"`);
    expect(readerGrants("sqlserver", "analytics")).toMatchSnapshot();
  });

  it("a replica made by the previous version: decimals altered to their new places (nullability restated), what is missing added, the views created", () => {
    const previousScales: Record<string, number> = { money: 12, quantity: 20, price: 28, "FX rate": 26 };
    const columns = new Map<string, Map<string, CatalogColumn>>();
    for (const table of allTables) {
      if (table.name === "logins" || table.name === "schema_objects") continue;
      const of = new Map<string, CatalogColumn>();
      for (const c of table.columns) {
        const t = c.type;
        const scale =
          t.kind === "decimal"
            ? t.scale === 10 || (t.scale === 8 && t.of === "weight")
              ? t.scale
              : (previousScales[t.of] ?? t.scale)
            : null;
        of.set(c.name, {
          dataType: t.kind === "decimal" ? "decimal" : "nvarchar",
          precision: t.kind === "decimal" ? 38 : null,
          scale,
          length: t.kind === "text" ? t.length : null,
        });
      }
      columns.set(`${table.schema}.${table.name}`, of);
    }
    const previous: Catalog = { ...emptyCatalog, schemas: new Set(["analytics", "replica"]), columns };
    const ddl = migrationPlan(db, "sqlserver", previous);
    expect(ddl).toContain(`ALTER TABLE "analytics"."prices" ALTER COLUMN "price" decimal(38, 12) NOT NULL`);
    expect(ddl).toContain(`ALTER TABLE "analytics"."holdings" ALTER COLUMN "price" decimal(38, 12) NULL`);
    expect(ddl).toContain(`ALTER TABLE "analytics"."transactions" ALTER COLUMN "fees" decimal(38, 8) NULL`);
    expect(ddl.filter((s) => s.includes("ALTER COLUMN")).length).toBeGreaterThan(10);
    expect(ddl.some((s) => s.includes(`"holdings" ALTER COLUMN "weight"`))).toBe(false);
    expect(ddl.indexOf(`DROP VIEW IF EXISTS "analytics"."latest_holdings"`)).toBeLessThan(
      ddl.findIndex((s) => s.includes("ALTER COLUMN")),
    );
    expect(ddl.some((s) => s.startsWith(`create table "replica"."logins"`))).toBe(true);
    expect(ddl.filter((s) => s.startsWith("CREATE VIEW") || s.startsWith("CREATE FUNCTION"))).toMatchSnapshot();
  });

  it("logins are contained users with passwords in the reader role, their limits in replica.logins; a rotated or dropped login's sessions are killed; the watchdog's query", () => {
    const limits = { connectionLimit: 10, statementTimeoutSeconds: 60 };
    const s = sqlServerLoginStatements;
    expect({
      create: s.create("ro_finance_ab12cd", "<password>", limits),
      setLimits: s.setLimits("ro_finance_ab12cd", { connectionLimit: 3, statementTimeoutSeconds: 600 }),
      setPassword: s.setPassword("ro_finance_ab12cd", "<password>"),
      drop: s.drop("ro_finance_ab12cd"),
      afterSessionsEnded: s.afterSessionsEnded("ro_finance_ab12cd"),
      sessionsOf: s.sessionsOf("ro_finance_ab12cd"),
      endSession: s.endSession(57),
      enforce: s.enforce,
      stopsItself: s.stopsItself,
    }).toMatchSnapshot();
  });

  it("every batch stays within SQL Server's 2,100 parameters and 1,000 rows per INSERT", () => {
    const holdings = tableDefinition("analytics", "holdings");
    const rows = Array.from({ length: 5000 }, (_, i) =>
      Object.fromEntries(holdings.columns.map((c) => [c.name, c.name === "security_id" ? `s${i}` : null])),
    );
    for (const part of chunksOf(rows, holdings.columns.length))
      expect(tsql(insertRows(db, "sqlserver", holdings, part)).parameters.length).toBeLessThanOrEqual(2000);
    expect(
      chunksOf(
        Array.from({ length: 5000 }, () => ({})),
        1,
      ).every((part) => part.length <= 1000),
    ).toBe(true);
    const versions = Array.from({ length: 5000 }, (_, i) => ({ doc_key: Buffer.alloc(32, i % 256), version: i }));
    for (const part of chunksOf(versions, 2))
      expect(tsql(mergeVersions(db, "sqlserver", part)).parameters.length).toBeLessThanOrEqual(2000);
  });
});
