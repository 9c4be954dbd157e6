import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { isPortFree } from "../local/children";
import { adminToken, call } from "./http";
import { newIsin } from "./investment-fixtures";
import { biClient, newLogin, replicaAndApi, replicaSettings, type Accepted } from "./replica-fixtures";
import { launchRuntime } from "../local/launch";
import { runtimeEnv, tempDir, type Runtime } from "./runtime";

const REPLICA_ROUTES = [
  ["GET", "/api/v1/settings/replica"],
  ["GET", "/api/v1/settings/replica/logins"],
  ["POST", "/api/v1/settings/replica/logins"],
  ["POST", "/api/v1/settings/replica/logins/rl_x/rotate-password"],
  ["DELETE", "/api/v1/settings/replica/logins/rl_x"],
  ["PATCH", "/api/v1/settings/replica/logins/rl_x"],
] as const;

/**
 * The replica off the Enterprise plan (nothing runs, every route 403), then turned on over the same
 * data folder: its first backfill projects every document stored before, with progress in the settings.
 */
/** A runtime of this test's own; its PostgreSQL server may first have to make its cluster (slow on a busy machine). */
const start = (env: Record<string, string>): Promise<Runtime> => launchRuntime(env, { timeoutMs: 120_000 });

describe("Replica plan and first backfill", () => {
  const data = tempDir("ids-replica-backfill-");
  let runtime: Runtime | undefined;
  afterAll(async () => {
    await runtime?.stop();
    data.remove();
  });

  it("off the Enterprise plan: no server, no replica functions, every replica route 403; turned on later, every stored document is projected once, with progress shown", async () => {
    const env = await runtimeEnv(data.path);
    runtime = await start({ ...env, ORGANISATION_PLAN: "premium" });
    const base = runtime.baseUrl;
    const token = await adminToken(base);
    for (const [method, path] of REPLICA_ROUTES) {
      const body = method === "POST" ? { name: "x" } : method === "PATCH" ? { connectionLimit: 2 } : undefined;
      const reply = await call(method, path, { token, base, ...(body !== undefined ? { body } : {}) });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body.error).toMatchObject({
        code: "FORBIDDEN",
        message: "The read-only SQL replica is an Enterprise plan feature; this organisation is on the premium plan",
      });
    }
    expect(existsSync(join(data.path, "replica"))).toBe(false);
    expect(await isPortFree(Number(env.REPLICA_PORT), "127.0.0.1")).toBe(true);
    expect(runtime.output()).not.toMatch(/\breplica-prices\b/);

    // Data stored while there is no replica: 1,200 prices, securities, their jobs.
    const isins = Array.from({ length: 12 }, () => newIsin());
    const imported = async (dataType: string, body: unknown): Promise<void> => {
      const reply = await call("POST", `/api/v1/import/${dataType}`, { token, base, body });
      expect(reply.status, reply.text).toBe(200);
    };
    await imported("securities", {
      securities: isins.map((isin) => ({ isin, name: `Backfill ${isin}`, assetClass: "equity", currency: "EUR" })),
    });
    const dates = Array.from({ length: 100 }, (_, i) => new Date(Date.UTC(2023, 0, 1 + i)).toISOString().slice(0, 10));
    await imported("prices", {
      prices: isins.flatMap((isin, n) =>
        dates.map((date, i) => ({
          isin,
          date,
          price: 100 + n + i / 1000,
          currency: "EUR",
          type: "close",
          source: "vendor",
        })),
      ),
    });
    await runtime.stop();

    // On again, with the prices trigger held back (disabled) so that the backfill's progress can be seen midway.
    runtime = await start({ ...env, "AzureWebJobs.replica-prices.Disabled": "true" });
    const midway = await vi.waitFor(
      async () => {
        const settings = await replicaSettings(token, runtime?.baseUrl);
        expect(settings.documents?.projected).toBe((settings.documents?.stored ?? 0) - 1200);
        return settings;
      },
      { timeout: 20_000, interval: 300 },
    );
    expect(midway.status).toBe("backfilling");
    expect(midway.lagSeconds).toBeGreaterThan(0);
    expect(midway.tables.find((t) => t.name === "prices")?.rows).toBe(0);
    expect(midway.tables.find((t) => t.name === "securities")?.rows).toBe(12);
    await runtime.stop();

    runtime = await start(env);
    const now = runtime.baseUrl;
    await vi.waitFor(
      async () => {
        const settings = await replicaSettings(token, now);
        expect(settings).toMatchObject({ status: "current", lagSeconds: 0 });
        expect(settings.documents?.projected).toBe(settings.documents?.stored);
      },
      { timeout: 30_000, interval: 300 },
    );
    const bi = await biClient(await replicaSettings(token, now), await newLogin(token, "backfill", now));
    try {
      const accepted: Accepted = { positions: new Map(), fxRates: [] };
      for (const [table, replica, api] of await replicaAndApi(token, bi, accepted, now))
        expect(replica, table).toEqual(api);
      expect(Number((await bi.query("SELECT count(*) AS n FROM analytics.prices")).rows[0]?.n)).toBe(1200);
    } finally {
      await bi.end();
    }
  }, 120_000);
});
