import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../local/launch";
import { KyselyReplicaStore } from "../shared/adapters/replica/kysely-replica-store";
import { postgresReplica } from "../shared/adapters/replica/replica-connections";
import { readCatalog } from "../shared/adapters/replica/replica-catalog";
import { migrationPlan } from "../shared/adapters/replica/replica-migration";
import { migrateReplicaSchema } from "../shared/adapters/replica/replica-schema";
import { columnTypeText } from "../shared/adapters/replica/replica-sql";
import { allTables } from "../shared/domain/replica/replica-tables";
import type { ColumnType } from "../shared/domain/replica/table-types";
import { sql } from "kysely";
import type { ReplicaDb } from "../shared/adapters/replica/replica-sql";
import { project } from "../shared/domain/replica/project-document";
import type { DataQualityCandidate } from "../shared/domain/data-quality-exception";
import type { DocumentProjection, ReplicaSource } from "../shared/domain/replica/projection";
import { ProjectChanges } from "../shared/app/replica/project-changes";
import { Logger } from "../shared/logging";
import { ReplicaRejected } from "../shared/ports/replica-store";
import { root, tempDir } from "./runtime";

const PASSWORD = "replica-store-test-password";

const projected = (source: ReplicaSource, document: unknown): DocumentProjection => {
  const result = project(source, document);
  if ("skipped" in result) throw new Error(`skipped: ${JSON.stringify(result)}`);
  return result;
};
const price = (lsn: number, value: number) =>
  projected("prices", {
    id: "2024-03-01|close|vendor",
    _rid: "r",
    _etag: `"${lsn}"`,
    _ts: 1_700_000_000 + lsn,
    _lsn: lsn,
    docType: "price",
    securityId: "sec_1",
    isin: "DE0000000001",
    date: "2024-03-01",
    price: value,
    currency: "EUR",
    type: "close",
    source: "vendor",
    updatedAt: "2024-03-01T00:00:00.000Z",
  });
const snapshot = (lsn: number, securities: string[]) =>
  projected("positions", {
    id: "p1|2024-03-01",
    _rid: "s",
    _etag: `"${lsn}"`,
    _ts: 1_700_000_000 + lsn,
    _lsn: lsn,
    docType: "snapshot",
    portfolioId: "p1",
    date: "2024-03-01",
    positions: securities.map((securityId) => ({ securityId, quantity: 0.1, costBasis: null, currency: null })),
    currencies: ["EUR"],
    updatedAt: "2024-03-01T00:00:00.000Z",
  });

/**
 * The version guard of the PostgreSQL store (INSERT … ON CONFLICT DO UPDATE … WHERE), against the
 * local runtime's real PostgreSQL server: what a BI user would read after out-of-order and repeated
 * deliveries.
 */
describe("replica store on PostgreSQL: the version guard", () => {
  const data = tempDir("ids-replica-store-");
  let server: ChildProcess;
  let port: number;
  let db: ReplicaDb;
  let store: KyselyReplicaStore;

  beforeAll(async () => {
    port = await freePort();
    server = fork(join(root, "dist", "local", "replica-server.js"), [String(port), data.path], {
      env: {
        ...process.env,
        REPLICA_ADMIN_USER: "replica_admin",
        REPLICA_ADMIN_PASSWORD: PASSWORD,
        REPLICA_DATABASE: "analytics",
      },
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    await new Promise<void>((resolve, reject) => {
      server.on("message", (m: { type?: string }) => (m.type === "ready" ? resolve() : undefined));
      server.once("exit", (code) => reject(new Error(`the replica server exited with ${code}`)));
    });
    db = postgresReplica({
      host: "127.0.0.1",
      port,
      database: "analytics",
      user: "replica_admin",
      password: PASSWORD,
    });
    store = new KyselyReplicaStore({
      engine: "postgres",
      db: () => Promise.resolve(db),
      ensureSchema: () => migrateReplicaSchema(db, "postgres", "analytics"),
      clock: { now: () => new Date("2024-03-01T12:00:00.000Z") },
    });
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    if (server?.exitCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.disconnect(); // as the runtime stops it: its channel closing
      await exited;
    }
    data.remove();
  });

  const prices = async () =>
    (await db.selectFrom("analytics.prices").select(["price"]).where("security_id", "=", "sec_1").execute()).map((r) =>
      String(r.price),
    );
  const positions = async () =>
    (await db.selectFrom("analytics.positions").select(["security_id"]).orderBy("security_id").execute()).map((r) =>
      String(r.security_id),
    );
  const pricesCounted = async () =>
    Number(
      (await db.selectFrom("replica.sources").select(["documents"]).where("container", "=", "prices").execute())[0]
        ?.documents,
    );

  it("a first version is inserted and counted once; a redelivered batch and an older change leave the newer row alone", async () => {
    expect(await store.apply([price(5, 101.25)])).toEqual({ applied: 1, unchanged: 0 });
    const first = await prices();
    // numeric comes back as its exact decimal text
    expect(first).toEqual([expect.stringMatching(/^101\.250*$/)]);

    expect(await store.apply([price(5, 101.25)])).toEqual({ applied: 0, unchanged: 1 });
    expect(await store.apply([price(3, 99.5)])).toEqual({ applied: 0, unchanged: 1 });
    expect(await prices()).toEqual(first);

    expect(await store.apply([price(7, 102.125)])).toEqual({ applied: 1, unchanged: 0 });
    expect(await prices()).toEqual([expect.stringMatching(/^102\.1250*$/)]);
    expect(await pricesCounted()).toBe(1);
  });

  it("a replaced position snapshot removes the rows the new one no longer has; an older one replayed changes nothing", async () => {
    expect(await store.apply([snapshot(10, ["s1", "s2"])])).toEqual({ applied: 1, unchanged: 0 });
    expect(await positions()).toEqual(["s1", "s2"]);
    expect(await store.apply([snapshot(12, ["s3"])])).toEqual({ applied: 1, unchanged: 0 });
    expect(await positions()).toEqual(["s3"]);
    expect(await store.apply([snapshot(10, ["s1", "s2"]), snapshot(12, ["s3"])])).toEqual({
      applied: 0,
      unchanged: 1,
    });
    expect(await positions()).toEqual(["s3"]);
  });

  describe("version tables: the open row from the record, the closed row from its copy, whichever arrives first", () => {
    const at = (n: number): string => `2024-03-0${n}T10:00:00.000Z`;
    const recorded = (version: number) => ({
      version,
      at: at(version),
      by: `client-${version}`,
      requestId: null,
      jobId: null,
    });
    const security = (version: number, lsn: number, name: string) => ({
      id: "sec_V",
      _lsn: lsn,
      _ts: 1_700_000_000 + lsn,
      docType: "security",
      isin: null,
      cusip: null,
      sedol: null,
      figi: null,
      ticker: null,
      name,
      nameLower: name.toLowerCase(),
      assetClass: "equity",
      currency: "EUR",
      country: null,
      exchange: null,
      lookThroughPortfolioId: null,
      status: "active",
      createdAt: at(1),
      updatedAt: at(version),
      recorded: { ...recorded(version), change: version === 1 ? "created" : "updated" },
    });
    const copy = (version: number, lsn: number, name: string, closedAt: string) => {
      const { _lsn: _l, _ts: _t, ...doc } = security(version, 0, name);
      return projected("versions", {
        id: `sec_V|v${version}`,
        key: "security|sec_V",
        _lsn: lsn,
        _ts: 1_700_000_000 + lsn,
        docType: "version",
        kind: "security",
        recordId: "sec_V",
        version,
        recordedFrom: at(version),
        recordedTo: closedAt,
        seq: "",
        doc,
      });
    };
    const versions = async () =>
      (
        await db
          .selectFrom("analytics.securities_versions")
          .select(["name", "version", "recorded_from", "recorded_to", "recorded_by"])
          .where("id", "=", "sec_V")
          .orderBy("version")
          .execute()
      ).map((r) => [
        Number(r.version),
        r.name,
        (r.recorded_from as unknown as Date).toISOString(),
        r.recorded_to === null ? null : (r.recorded_to as unknown as Date).toISOString(),
        r.recorded_by,
      ]);

    it("a new version closes the previous one at its instant; the closed copy agrees; a late change never reopens it", async () => {
      await store.apply([projected("securities", security(1, 1, "One"))]);
      expect(await versions()).toEqual([[1, "One", at(1), null, "client-1"]]);
      await store.apply([projected("securities", security(2, 2, "Two"))]);
      expect(await versions()).toEqual([
        [1, "One", at(1), at(2), "client-1"],
        [2, "Two", at(2), null, "client-2"],
      ]);
      // The copies from the versions container (another feed) arrive later, or again: the same rows.
      await store.apply([copy(1, 1, "One", at(2))]);
      await store.apply([copy(1, 1, "One", at(2))]);
      // Version 3's closed copy of version 2 arrives before version 3 itself...
      await store.apply([copy(2, 2, "Two", at(3))]);
      expect(await versions()).toEqual([
        [1, "One", at(1), at(2), "client-1"],
        [2, "Two", at(2), at(3), "client-2"],
      ]);
      // ...and version 2's change delivered again (a replay) does not reopen it.
      await store.apply([projected("securities", security(2, 2, "Two"))]);
      await store.apply([projected("securities", security(3, 3, "Three"))]);
      expect(await versions()).toEqual([
        [1, "One", at(1), at(2), "client-1"],
        [2, "Two", at(2), at(3), "client-2"],
        [3, "Three", at(3), null, "client-3"],
      ]);
      // The point-in-time WHERE gives one row per instant, the version current then.
      const asAt = async (t: string) =>
        (
          await db
            .selectFrom("analytics.securities_versions")
            .select("name")
            .where("id", "=", "sec_V")
            .where("recorded_from", "<=", t)
            .where((eb) => eb.or([eb("recorded_to", "is", null), eb("recorded_to", ">", t)]))
            .execute()
        ).map((r) => r.name);
      expect(await asAt("2024-03-01T09:59:59.999Z")).toEqual([]);
      expect(await asAt(at(1))).toEqual(["One"]);
      expect(await asAt("2024-03-02T09:59:59.999Z")).toEqual(["One"]);
      expect(await asAt(at(2))).toEqual(["Two"]);
      expect(await asAt("2024-03-09T00:00:00.000Z")).toEqual(["Three"]);
    });

    it("an open copy (a change in progress) and a valuation's header copy are not projected", () => {
      const open = {
        id: "sec_V|v9",
        key: "security|sec_V",
        _lsn: 1,
        docType: "version",
        kind: "security",
        recordedTo: null,
      };
      expect(project("versions", open)).toEqual({ skipped: "not-projected" });
      expect(project("versions", { ...open, kind: "valuation", recordedTo: at(2) })).toEqual({
        skipped: "not-projected",
      });
    });
  });

  /** A price as the projection makes it, with one column's value replaced after it (as if the domain had let it through). */
  const priceOf = (security: string, lsn: number, change: Record<string, string> = {}): DocumentProjection => {
    const p = projected("prices", {
      id: "2024-03-01|close|vendor",
      _lsn: lsn,
      _ts: 1_700_000_000,
      docType: "price",
      securityId: security,
      isin: null,
      date: "2024-03-01",
      price: 1.25,
      currency: "EUR",
      type: "close",
      source: "vendor",
    });
    const row = p.groups[0]?.rows[0];
    if (row !== undefined) Object.assign(row, change);
    return p;
  };

  it("the engine's refusals are data errors (ReplicaRejected, with its message); the transaction leaves nothing behind", async () => {
    for (const [change, message] of [
      [{ source: "a\u0000b" }, /invalid byte sequence for encoding "UTF8": 0x00/],
      [{ date: "0000-01-01" }, /date\/time field value out of range|out of range/],
      [{ price: "1e40" }, /numeric field overflow/],
    ] as const) {
      const batch = [priceOf("sec_ok", 1), priceOf("sec_bad", 1, change)];
      const refused = await store.apply(batch).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, JSON.stringify(change)).toBeInstanceOf(ReplicaRejected);
      expect((refused as ReplicaRejected).engineMessage).toMatch(message);
    }
    expect(
      await db.selectFrom("analytics.prices").select("security_id").where("security_id", "=", "sec_ok").execute(),
    ).toEqual([]);
  });

  it("a batch with refused documents: the rest arrive, each refused one is reported with the engine's message and counted as projected", async () => {
    const opened: DataQualityCandidate[] = [];
    const use = new ProjectChanges({
      store,
      log: new Logger("error", () => undefined),
      exceptions: { open: (c) => Promise.resolve(opened.push(...c)) },
    });
    const doc = (n: number, fields: Record<string, unknown> = {}) => ({
      id: "2024-03-01|close|vendor",
      _lsn: 100 + n,
      _ts: 1_700_000_100,
      docType: "price",
      securityId: `sec_batch_${n}`,
      date: "2024-03-01",
      price: 2.5,
      currency: "EUR",
      type: "close",
      source: "vendor",
      ...fields,
    });
    const before = await pricesCounted();
    const documents = Array.from({ length: 200 }, (_, n) =>
      n === 17 ? doc(n, { date: "0000-01-01" }) : n === 150 ? doc(n, { date: "2024-02-30" }) : doc(n),
    );
    expect(await use.execute({ source: "prices", documents })).toEqual({
      applied: 200,
      unchanged: 0,
      skipped: 0,
      rejected: 2,
    });
    const stored = await db
      .selectFrom("analytics.prices")
      .select("security_id")
      .where("security_id", "like", "sec_batch_%")
      .execute();
    expect(stored).toHaveLength(198);
    expect(opened.map((c) => [c.entity.id, c.message])).toEqual([
      ["sec_batch_17|2024-03-01|close|vendor", expect.stringMatching(/out of range: "0000-01-01"/) as string],
      ["sec_batch_150|2024-03-01|close|vendor", expect.stringMatching(/out of range: "2024-02-30"/) as string],
    ]);
    // Every document counts as projected: the settings answer is not stuck at "backfilling".
    expect(await pricesCounted()).toBe(before + 200);
    // Delivered again (a crash before the checkpoint): the refused versions are recorded, so nothing is refused or reported again.
    expect(await use.execute({ source: "prices", documents })).toEqual({
      applied: 0,
      unchanged: 200,
      skipped: 0,
      rejected: 0,
    });
    expect(opened).toHaveLength(2);
  });

  it("a failure that is not the data's (the database unreachable) is not a refusal: the batch is left to be delivered again", async () => {
    const closed = postgresReplica({
      host: "127.0.0.1",
      port: await freePort(),
      database: "analytics",
      user: "x",
      password: "y",
    });
    const unreachable = new KyselyReplicaStore({
      engine: "postgres",
      db: () => Promise.resolve(closed),
      ensureSchema: () => Promise.resolve(),
      clock: { now: () => new Date() },
    });
    const failure = await unreachable.apply([priceOf("sec_x", 1)]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ReplicaRejected);
    await closed.destroy();
  });

  it("a replica made by the previous version comes up: decimals take their new places (values kept), keys, views and descriptions are added, and a second start has nothing to do", async () => {
    const admin = (database: string) =>
      postgresReplica({ host: "127.0.0.1", port, database, user: "replica_admin", password: PASSWORD });
    await sql.raw("CREATE DATABASE previous").execute(db);
    const previous = admin("previous");
    try {
      // The previous version's tables: the same definitions with its decimal places, no keys, views or descriptions.
      const previousType = (t: ColumnType): string =>
        t.kind === "decimal" && t.scale !== 10 && t.of !== "weight"
          ? `decimal(38, ${{ money: 12, quantity: 20, price: 28, "FX rate": 26 }[t.of] ?? t.scale})`
          : columnTypeText("postgres", t);
      await sql.raw("CREATE SCHEMA analytics; CREATE SCHEMA replica").execute(previous);
      // Nor the columns of incomplete valuations (valuations' and holdings'): they are added.
      const addedSince = new Set(["complete", "unvalued_count", "fx_method", "fx_pivot", "unvalued"]);
      // It had no version tables either: they are created.
      for (const t of allTables.filter(
        (t) => t.name !== "logins" && t.name !== "schema_objects" && !t.name.endsWith("_versions"),
      ))
        await sql
          .raw(
            `CREATE TABLE ${t.schema}.${t.name} (${t.columns
              .filter((c) => !addedSince.has(c.name))
              .map((c) => `${c.name} ${previousType(c.type)}${c.nullable ? "" : " NOT NULL"}`)
              .join(", ")}, PRIMARY KEY (${t.primaryKey.join(", ")}))`,
          )
          .execute(previous);
      await sql
        .raw(
          `INSERT INTO analytics.prices VALUES ('sec_1', NULL, '2024-03-01', 'close', 101.2500000000000000000000000001, 'EUR', 'vendor');
           INSERT INTO analytics.holdings VALUES ('p1', '2024-03-01', 'sec_1', NULL, 10.5, 101.25, '2024-03-01', 'close', 'EUR', 1, 1063.13, 1);
           INSERT INTO analytics.valuations VALUES ('p1', '2024-03-01', 'EUR', 1063.13, now());
           INSERT INTO analytics.securities VALUES ('sec_1', NULL, NULL, NULL, NULL, NULL, 'One', 'equity', 'EUR', NULL, NULL, NULL, 'active', now(), now())`,
        )
        .execute(previous);

      await migrateReplicaSchema(previous, "postgres", "previous");

      const { rows } = await sql<{ table_name: string; numeric_scale: number }>`
        SELECT table_name, numeric_scale FROM information_schema.columns
        WHERE table_schema = 'analytics' AND table_name IN ('prices', 'prices_versions') AND column_name = 'price'
        ORDER BY table_name`.execute(previous);
      // The version tables it lacked are created with the same places, descriptions and keys.
      expect(rows).toEqual([
        { table_name: "prices", numeric_scale: 12 },
        { table_name: "prices_versions", numeric_scale: 12 },
      ]);
      expect(
        (
          await sql<{ description: string | null }>`
            SELECT col_description(a.attrelid, a.attnum) AS description FROM pg_attribute a
            WHERE a.attrelid = 'analytics.positions_versions'::regclass AND a.attname = 'version'`.execute(previous)
        ).rows,
      ).toEqual([{ description: expect.stringMatching(/^The version: 1, 2/) as string }]);
      expect(
        (await sql<{ price: string }>`SELECT price::text AS price FROM analytics.prices`.execute(previous)).rows,
      ).toEqual([{ price: "101.250000000000" }]);
      expect(
        (
          await sql<
            Record<string, unknown>
          >`SELECT portfolio_id, security_name, asset_class, quantity::text AS quantity FROM analytics.latest_holdings`.execute(
            previous,
          )
        ).rows,
      ).toEqual([{ portfolio_id: "p1", security_name: "One", asset_class: "equity", quantity: "10.500000000000" }]);
      expect(migrationPlan(previous, "postgres", await readCatalog(previous, "postgres"))).toEqual([]);
    } finally {
      await previous.destroy();
    }
  });
});
