/**
 * The SQL replica (BENCH_ONLY=replica; BENCH_REPLICA=lag|backfill runs one), on the local runtime's PostgreSQL:
 * - replica-lag: a sustained import of 1,000 prices a second (one request each second, for
 *   BENCH_REPLICA_SECONDS, default 60); for each import, the seconds from its answer to the moment all
 *   of its rows are in the replica, read by a BI-like client polling every 50 ms. p99 against the
 *   2 s target.
 * - replica-backfill: BENCH_BACKFILL_DOCS (default 1,000,000) price documents stored while the
 *   replica is off (premium plan), then the runtime restarted on the Enterprise plan: rows/s from its
 *   ready message to the last row in `analytics.prices`, against a raw bulk insert of the same rows
 *   (multi-row INSERTs of 1,000 rows, one connection) into the same PostgreSQL in the same run.
 */
import { CosmosClient, type JSONObject } from "@azure/cosmos";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { bulkUpsert } from "../shared/adapters/cosmos/bulk";
import { launchRuntime, localComponentEnv, projectRoot, type LaunchedRuntime } from "../local/launch";
import { dateAfter, isinFor, post } from "./fixtures";
import { ADMIN, adminToken, profiling, resultLine } from "./harness";

const settings = (
  JSON.parse(readFileSync(join(projectRoot, "local.settings.example.json"), "utf8")) as {
    Values: Record<string, string>;
  }
).Values;

async function start(dataDir: string, env: Record<string, string>): Promise<LaunchedRuntime> {
  return launchRuntime(
    {
      ...env,
      BOOTSTRAP_CLIENT_ID: ADMIN.id,
      BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
      RATE_LIMIT_PREMIUM_PER_MINUTE: "100000000",
      RATE_LIMIT_PREMIUM_PER_DAY: "1000000000",
      LOG_LEVEL: "warn",
      LOCAL_DATA_DIR: dataDir,
      ...profiling.env,
    },
    { timeoutMs: 600_000, execArgv: profiling.execArgv },
  );
}

/** The replica's owner (the local settings' admin), as the raw baseline and the progress probe connect. */
async function admin(port: string): Promise<Client> {
  const client = new Client({
    host: "127.0.0.1",
    port: Number(port),
    user: settings.REPLICA_ADMIN_USER,
    password: settings.REPLICA_ADMIN_PASSWORD,
    database: "analytics",
  });
  await client.connect();
  return client;
}

/** A query that may run before the replica's schema exists (the first change creates it): nothing yet. */
async function rowsOf<T extends Record<string, unknown>>(
  pg: Client,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  try {
    return (await pg.query<T>(text, values)).rows;
  } catch (error) {
    if ((error as { code?: string }).code === "42P01" || (error as { code?: string }).code === "3F000") return [];
    throw error;
  }
}

const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
};

async function benchLag(): Promise<boolean> {
  const seconds = Number(process.env.BENCH_REPLICA_SECONDS ?? 60);
  const dataDir = mkdtempSync(join(tmpdir(), "ids-bench-replica-"));
  const env = await localComponentEnv(dataDir);
  const runtime = await start(dataDir, env);
  const pg = await admin(env.REPLICA_PORT ?? "");
  try {
    const token = await adminToken(runtime.baseUrl);
    const securities = Array.from({ length: 100 }, (_, s) => ({
      isin: isinFor(s),
      name: `Lag ${s}`,
      assetClass: "equity",
      currency: "EUR",
    }));
    if ((await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities })).status !== 200)
      throw new Error("securities import failed");
    // Each second, 1,000 prices (100 securities × 10 dates) under a source of their own.
    const answered = new Map<string, number>();
    const visible = new Map<string, number>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const pending = [...answered.keys()].filter((s) => !visible.has(s));
        if (pending.length > 0) {
          const rows = await rowsOf<{ source: string; n: string }>(
            pg,
            "SELECT source, count(*) AS n FROM analytics.prices WHERE source = ANY($1) GROUP BY source",
            [pending],
          );
          const now = performance.now();
          for (const row of rows) if (Number(row.n) === 1000) visible.set(row.source, now);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const imports: Promise<void>[] = [];
    const started = performance.now();
    for (let n = 0; n < seconds; n++) {
      const source = `lag-${n}`;
      const prices = securities.flatMap((s, i) =>
        Array.from({ length: 10 }, (_, d) => ({
          isin: s.isin,
          date: dateAfter("2024-01-01", d),
          price: 100 + i + n / 100,
          currency: "EUR",
          type: "close",
          source,
        })),
      );
      imports.push(
        post(runtime.baseUrl, token, "/api/v1/import/prices", { prices }).then((reply) => {
          if (reply.status !== 200) throw new Error(`import failed (${reply.status})`);
          answered.set(source, performance.now());
        }),
      );
      const next = started + (n + 1) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
    await Promise.all(imports);
    const deadline = performance.now() + 60_000;
    while (visible.size < answered.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    polling = false;
    await poller;
    const lags = [...answered].map(([source, at]) => ((visible.get(source) ?? Number.POSITIVE_INFINITY) - at) / 1000);
    const slowest = [...answered.keys()]
      .map((source, i) => ({ source, lag: lags[i] ?? 0 }))
      .sort((a, b) => b.lag - a.lag)
      .slice(0, 5);
    const p50 = percentile(lags, 0.5);
    const p99 = percentile(lags, 0.99);
    console.log(
      `\nreplica-lag: ${answered.size} imports of 1,000 prices, one a second; answer → every row in the replica: p50 ${p50.toFixed(2)} s, p99 ${p99.toFixed(2)} s, max ${Math.max(...lags).toFixed(2)} s (target p99 ≤ 2 s)`,
    );
    console.log(`replica-lag: slowest ${slowest.map((s) => `${s.source} ${s.lag.toFixed(2)} s`).join(", ")}`);
    console.log(resultLine("replica-lag", p99, 2, 2));
    return p99 <= 2;
  } finally {
    await pg.end();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The price documents as CosmosPriceRepository stores them. */
function priceDocs(from: number, to: number): JSONObject[] {
  const docs: JSONObject[] = [];
  for (let i = from; i < to; i++) {
    const security = i % 1000;
    const day = Math.floor(i / 1000);
    const isin = isinFor(security);
    const date = dateAfter("2000-01-03", day);
    docs.push({
      id: `${date}|close|bench`,
      securityId: `sec_${isin}`,
      isin,
      date,
      price: Math.round((50 + security / 7 + day / 100) * 10_000) / 10_000,
      currency: "EUR",
      type: "close",
      source: "bench",
      updatedAt: "2024-01-01T00:00:00.000Z",
      docType: "price",
    });
  }
  return docs;
}

async function benchBackfill(): Promise<boolean> {
  const total = Number(process.env.BENCH_BACKFILL_DOCS ?? 1_000_000);
  const dataDir = mkdtempSync(join(tmpdir(), "ids-bench-backfill-"));
  const env = await localComponentEnv(dataDir);
  try {
    // Stored while the replica is off: straight into the runtime's Cosmos store with the SDK.
    let runtime = await start(dataDir, { ...env, ORGANISATION_PLAN: "premium" });
    const cosmos = new CosmosClient({
      endpoint: env.COSMOS_ENDPOINT ?? "",
      key: settings.COSMOS_KEY ?? "",
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const prices = cosmos.database(settings.COSMOS_DATABASE ?? "investment-data").container("prices");
    const loadStarted = performance.now();
    for (let i = 0; i < total; i += 20_000) await bulkUpsert(prices, priceDocs(i, Math.min(total, i + 20_000)));
    console.log(
      `\nreplica-backfill: ${total.toLocaleString("en")} price documents stored in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s`,
    );
    cosmos.dispose();
    await runtime.stop();

    // Turned on: from the runtime's ready message to the last row.
    runtime = await start(dataDir, env);
    const projectionStarted = performance.now();
    const pg = await admin(env.REPLICA_PORT ?? "");
    try {
      // Progress from the replica's own bookkeeping (updated in the same transaction as the rows): a
      // count(*) over a growing million-row table four times a second would compete with the projection.
      let documents = 0;
      while (documents < total) {
        await new Promise((r) => setTimeout(r, 250));
        documents = Number(
          (await rowsOf<{ n: string }>(pg, "SELECT documents AS n FROM replica.sources WHERE container = 'prices'"))[0]
            ?.n ?? 0,
        );
      }
      const projectionSeconds = (performance.now() - projectionStarted) / 1000;
      const rows = Number((await pg.query<{ n: string }>("SELECT count(*) AS n FROM analytics.prices")).rows[0]?.n);
      if (rows !== total) throw new Error(`the replica has ${rows} prices, not ${total}`);
      const rate = total / projectionSeconds;

      // Raw: the same rows, multi-row INSERTs of 1,000 rows into a copy of the table, one connection.
      const { rows: stored } = await pg.query<Record<string, string | null>>("SELECT * FROM analytics.prices");
      const columns = Object.keys(stored[0] ?? {});
      await pg.query("DROP SCHEMA IF EXISTS bench_raw CASCADE");
      await pg.query("CREATE SCHEMA bench_raw");
      await pg.query("CREATE TABLE bench_raw.prices (LIKE analytics.prices INCLUDING ALL)");
      const rawStarted = performance.now();
      for (let i = 0; i < stored.length; i += 1000) {
        const part = stored.slice(i, i + 1000);
        const values = part
          .map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`)
          .join(", ");
        await pg.query(
          `INSERT INTO bench_raw.prices (${columns.join(", ")}) VALUES ${values}`,
          part.flatMap((row) => columns.map((c) => row[c] ?? null)),
        );
      }
      const rawRate = stored.length / ((performance.now() - rawStarted) / 1000);
      await pg.query("DROP SCHEMA bench_raw CASCADE");
      const ratio = rate / rawRate;
      console.log(
        `replica-backfill: ${total.toLocaleString("en")} rows projected in ${projectionSeconds.toFixed(1)} s: ${Math.round(rate).toLocaleString("en")} rows/s; raw INSERTs ${Math.round(rawRate).toLocaleString("en")} rows/s; ratio ${ratio.toFixed(2)} (target ≥ 0.5); load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`,
      );
      console.log(resultLine("replica-backfill", rate, rawRate, 0.5));
      return ratio >= 0.5;
    } finally {
      await pg.end();
      await runtime.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Both replica figures (BENCH_REPLICA=lag|backfill: one of them); each starts its own runtime. */
export async function benchReplica(): Promise<boolean> {
  const only = process.env.BENCH_REPLICA;
  const lag = only === "backfill" ? true : await benchLag();
  const backfill = only === "lag" ? true : await benchBackfill();
  return lag && backfill;
}
