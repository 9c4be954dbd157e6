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
});
