import { afterAll, describe, expect, it, vi } from "vitest";
import { adminToken, call } from "./http";
import { newIsin } from "./investment-fixtures";
import { biClient, newLogin, replicaAndApi, replicaSettings, type Accepted } from "./replica-fixtures";
import { launchRuntime } from "../local/launch";
import { childrenGone } from "./children-gone";
import { runtimeEnv, tempDir, type Runtime } from "./runtime";

const IMPORTS = 60;
const PRICES_EACH = 100;

/**
 * `kill -9` of the runtime while imports stream in and the replica projects them: after the restart
 * the replica converges to exactly what the API holds, nothing missing (every acknowledged price is
 * there) and nothing doubled.
 */
/** A runtime of this test's own; its PostgreSQL server may first have to make its cluster (slow on a busy machine). */
const start = (env: Record<string, string>): Promise<Runtime> => launchRuntime(env, { timeoutMs: 120_000 });

describe("Replica after a crash", () => {
  const data = tempDir("ids-replica-crash-");
  let runtime: Runtime | undefined;
  afterAll(async () => {
    await runtime?.stop();
    data.remove();
  });

  it("kill -9 during a burst of imports, then a restart: the replica equals the API, every acknowledged write is in it once", async () => {
    const env = await runtimeEnv(data.path);
    runtime = await start(env);
    const token = await adminToken(runtime.baseUrl);
    const isins = Array.from({ length: 10 }, () => newIsin());
    const base = runtime.baseUrl;
    const reply = await call("POST", "/api/v1/import/securities", {
      token,
      base,
      body: {
        securities: isins.map((isin) => ({ isin, name: `Crash ${isin}`, assetClass: "equity", currency: "EUR" })),
      },
    });
    expect(reply.status, reply.text).toBe(200);

    // Imports four at a time; the runtime is killed once a third of them were answered.
    const batch = (n: number) =>
      isins.flatMap((isin, i) =>
        Array.from({ length: PRICES_EACH / isins.length }, (_, k) => ({
          isin,
          date: new Date(Date.UTC(2024, 0, 1 + n)).toISOString().slice(0, 10),
          price: 100 + n + i + k / 100,
          currency: "EUR",
          type: "close",
          source: `s${k}`,
        })),
      );
    const acknowledged: ReturnType<typeof batch>[] = [];
    let answered = 0;
    const killed = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (answered >= IMPORTS / 3) {
          clearInterval(check);
          void runtime?.kill().then(resolve);
        }
      }, 5);
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < IMPORTS) {
          const prices = batch(next++);
          const result = await call("POST", "/api/v1/import/prices", { token, base, body: { prices } }).catch(
            () => undefined,
          );
          if (result?.status !== 200) return;
          acknowledged.push(prices);
          answered++;
        }
      }),
    );
    await killed;
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.length).toBeLessThan(IMPORTS);

    await childrenGone(data.path);
    runtime = await start(env);
    const now = runtime.baseUrl;
    const bi = await biClient(await replicaSettings(token, now), await newLogin(token, "after the crash", now));
    try {
      const accepted: Accepted = { positions: new Map(), fxRates: [] };
      await vi.waitFor(
        async () => {
          for (const [table, replica, api] of await replicaAndApi(token, bi, accepted, now))
            expect(replica, table).toEqual(api);
        },
        { timeout: 60_000, interval: 1000 },
      );
      const { rows } = await bi.query<{ isin: string; date: string; source: string; n: number }>(
        "SELECT isin, date, source, count(*) AS n FROM analytics.prices GROUP BY isin, date, source",
      );
      const stored = new Map(rows.map((r) => [`${r.isin}|${r.date}|${r.source}`, r.n]));
      for (const price of acknowledged.flat())
        expect(
          stored.get(`${price.isin}|${price.date}|${price.source}`),
          `${price.isin} ${price.date} ${price.source}`,
        ).toBe(1);
    } finally {
      await bi.end();
    }
  }, 180_000);
});
