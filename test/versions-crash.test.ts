import { CosmosClient, type Container } from "@azure/cosmos";
import { afterAll, describe, expect, it } from "vitest";
import { adminToken, call } from "./http";
import { COSMOS_KEY, newIsin } from "./investment-fixtures";
import { runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";

const SECURITIES = 40;
const DATES = 50; // 2,000 prices: every bulk round of a restatement is 20 calls of 100
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const dateAfter = (days: number): string =>
  new Date(Date.UTC(2024, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);

interface Recorded {
  version: number;
  at: string;
}
interface PriceDoc {
  id: string;
  securityId: string;
  price: number;
  recorded: Recorded;
}
interface VersionDoc {
  id: string;
  recordId: string;
  version: number;
  recordedFrom: string;
  recordedTo: string | null;
  doc: PriceDoc;
}

/**
 * What the store holds for every price, checked as an auditor would: each current price with version n
 * has exactly the versions 1 … n-1 stored beside it (none missing: a record is never visible without
 * the version it replaced); no version is there twice (ids are deterministic, and a copy of the current
 * version, which a crash may leave, is never closed); every closed copy ends where its next version
 * begins. Returns, per price, its versions (1 … n) with the instant each began.
 */
async function auditVersions(
  prices: Container,
  versions: Container,
): Promise<Map<string, { from: string; price: number }[]>> {
  const current = (await prices.items.query<PriceDoc>("SELECT * FROM c WHERE c.docType = 'price'").fetchAll())
    .resources;
  const copies = (await versions.items.query<VersionDoc>("SELECT * FROM c WHERE c.kind = 'price'").fetchAll())
    .resources;
  const byRecord = new Map<string, VersionDoc[]>();
  for (const copy of copies) {
    const key = `${copy.doc.securityId}|${copy.recordId}`;
    byRecord.set(key, [...(byRecord.get(key) ?? []), copy]);
  }
  const out = new Map<string, { from: string; price: number }[]>();
  for (const doc of current) {
    const key = `${doc.securityId}|${doc.id}`;
    const n = doc.recorded.version;
    const mine = byRecord.get(key) ?? [];
    const below = mine.filter((c) => c.version < n).sort((a, b) => a.version - b.version);
    expect(
      below.map((c) => c.version),
      `${key}: versions below the current ${n}`,
    ).toEqual(Array.from({ length: n - 1 }, (_, i) => i + 1));
    // A copy of the current version may be left by a crash before its replace; it must still be open.
    for (const c of mine.filter((c) => c.version >= n)) {
      expect(c.version, key).toBe(n);
      expect(c.recordedTo, `${key}: a copy of the current version closed`).toBeNull();
    }
    const chain = [
      ...below.map((c) => ({ from: c.recordedFrom, price: c.doc.price })),
      { from: doc.recorded.at, price: doc.price },
    ];
    below.forEach((c, i) => {
      if (c.recordedTo !== null)
        expect(c.recordedTo, `${key} v${c.version} ends where v${c.version + 1} begins`).toBe(chain[i + 1]?.from);
    });
    for (let i = 1; i < chain.length; i++) expect((chain[i]?.from ?? "") > (chain[i - 1]?.from ?? ""), key).toBe(true);
    out.set(key, chain);
  }
  return out;
}

/**
 * A record is never visible without its version, and nothing is lost or doubled, across `kill -9`:
 * restatements of 2,000 prices are killed at random points of their three write steps (copy, replace,
 * close), and after each restart, before and after the client's retry, the stored versions and the
 * API's answers as at every instant of their history agree.
 */
describe("versions across a crash", () => {
  const data = tempDir("ids-versions-crash-");
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    data.remove();
  }, 60_000);

  it("kill -9 mid-restatement, then restart and retry: every version stored once, every asAt answer consistent", async () => {
    const env = await runtimeEnv(data.path);
    let runtime = await startRuntime(env);
    runtimes.push(runtime);
    let token = await adminToken(runtime.baseUrl);
    const cosmos = new CosmosClient({
      endpoint: env.COSMOS_ENDPOINT ?? "",
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const db = cosmos.database("investment-data");
    const isins = Array.from({ length: SECURITIES }, () => newIsin());
    const created = await call("POST", "/api/v1/import/securities", {
      base: runtime.baseUrl,
      token,
      body: {
        securities: isins.map((isin, i) => ({
          isin,
          name: `Versions crash ${i}`,
          assetClass: "equity",
          currency: "EUR",
        })),
      },
    });
    expect(created.status, created.text).toBe(200);
    const restatement = (round: number) => ({
      prices: isins.flatMap((isin, s) =>
        Array.from({ length: DATES }, (_, d) => ({
          isin,
          date: dateAfter(d),
          // Rounded to cents: a float sum such as 104.07000000000001 has more decimals than are stored (422).
          price: Math.round((100 + s + d / 100 + round) * 100) / 100,
          currency: "EUR",
          type: "close",
          source: "crash",
        })),
      ),
    });
    const post = (base: string, body: unknown) => call("POST", "/api/v1/import/prices", { base, token, body });
    expect((await post(runtime.baseUrl, restatement(0))).status).toBe(200);

    /** The API's prices of a security as at T, against what the stored versions say was current then. */
    const checkAsAt = async (base: string, chains: Map<string, { from: string; price: number }[]>) => {
      const securityId = `sec_${isins[0] ?? ""}`;
      const instants = new Set<string>();
      for (const [key, chain] of chains)
        if (key.startsWith(`${securityId}|`))
          for (const { from } of chain) {
            instants.add(from);
            instants.add(new Date(Date.parse(from) - 1).toISOString());
          }
      for (const at of [...instants].sort()) {
        const reply = await call(
          "GET",
          `/api/v1/securities/${securityId}/prices?pageSize=200&asAt=${encodeURIComponent(at)}`,
          {
            base,
            token,
          },
        );
        expect(reply.status, reply.text).toBe(200);
        const expected = [...chains]
          .filter(([key]) => key.startsWith(`${securityId}|`))
          .flatMap(([key, chain]) => {
            const then = chain.filter((v) => v.from <= at).at(-1);
            return then === undefined ? [] : [{ id: key.slice(securityId.length + 1), price: then.price }];
          })
          .sort((a, b) => (a.id < b.id ? -1 : 1));
        const answered = (reply.body.data as { date: string; type: string; source: string; price: number }[]).map(
          (p) => ({
            id: `${p.date}|${p.type}|${p.source}`,
            price: p.price,
          }),
        );
        expect(answered, `prices as at ${at}`).toEqual(expected);
        expect(reply.body.pagination.totalItems, `total as at ${at}`).toBe(expected.length);
      }
    };

    for (let round = 1; round <= 3; round++) {
      // Two writers restate the same prices at once (a race on every record), and the process dies mid-way.
      // Settled from the start: the kill fails the requests in flight, which must not surface as unhandled rejections.
      const inFlight = Promise.allSettled([
        post(runtime.baseUrl, restatement(round)),
        post(runtime.baseUrl, restatement(round + 0.5)),
      ]);
      await sleep(300 + Math.floor(Math.random() * 1500));
      await runtime.kill();
      await inFlight;
      runtime = await startRuntime(env);
      runtimes.push(runtime);
      token = await adminToken(runtime.baseUrl);
      // Straight after the restart, before anyone retries: nothing half-recorded is visible.
      await checkAsAt(runtime.baseUrl, await auditVersions(db.container("prices"), db.container("versions")));
      // The clients retry; afterwards every price is the last writer's, with its whole history.
      const retried = await post(runtime.baseUrl, restatement(round + 0.5));
      expect(retried.status, retried.text).toBe(200);
      await checkAsAt(runtime.baseUrl, await auditVersions(db.container("prices"), db.container("versions")));
      const current = await call("GET", `/api/v1/securities/sec_${isins[1] ?? ""}/prices?pageSize=1`, {
        base: runtime.baseUrl,
        token,
      });
      expect(current.body.data[0].price).toBe(101 + round + 0.5);
    }
    cosmos.dispose();
  }, 600_000);
});
