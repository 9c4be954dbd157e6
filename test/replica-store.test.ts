import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../local/launch";
import { KyselyReplicaStore } from "../shared/adapters/replica/kysely-replica-store";
import { postgresReplica } from "../shared/adapters/replica/replica-connections";
import { migrateReplicaSchema } from "../shared/adapters/replica/replica-schema";
import type { ReplicaDb } from "../shared/adapters/replica/replica-sql";
import { project } from "../shared/domain/replica/project-document";
import type { DocumentProjection, ReplicaSource } from "../shared/domain/replica/projection";
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
  let db: ReplicaDb;
  let store: KyselyReplicaStore;

  beforeAll(async () => {
    const port = await freePort();
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
});
