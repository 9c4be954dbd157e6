import { CosmosClient, type Container, type SqlQuerySpec } from "@azure/cosmos";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nextMessage, startChild, type Child } from "../local/children";
import { freePort, projectRoot } from "../local/launch";
import { resultLine } from "./harness";
import { benchApiOnLargeStore } from "./stand-in-api";
import { PRICES_PER_SECURITY, securityIdFor, writePriceSnapshot } from "./price-snapshot";

const SIZES = [10_000, 100_000, 1_000_000];
const SAMPLES = 200;
const CROSS_SAMPLES = 3;

interface Figures {
  documents: number;
  startMs: number;
  top1: number;
  count: number;
  cross: number;
  stopMs: number;
  restartMs: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Forks the stand-in exactly as the local runtime does (dist/local/cosmos-server.js) and waits for it. */
async function startStandIn(dataDir: string, port: number): Promise<{ child: Child; ms: number; documents: number }> {
  const started = performance.now();
  const script = join(projectRoot, "dist", "local", "cosmos-server.js");
  const child = startChild(dataDir, "cosmos", script, [String(port), join(dataDir, "cosmos"), "3600"], (line) =>
    console.error(line),
  );
  const { documents } = (await nextMessage(child.process, "ready", 600_000)) as { documents: number };
  return { child, ms: performance.now() - started, documents };
}

async function sample(count: number, query: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await timed(() => query(i)));
  return median(times);
}

function queries(
  container: Container,
  securities: number,
): { top1: (i: number) => Promise<unknown>; count: (i: number) => Promise<unknown>; cross: () => Promise<unknown> } {
  // Spread over the container, so no one partition's place in it decides the figure.
  const security = (i: number): string =>
    securityIdFor(Math.floor((((i * 7919) % securities) + securities) % securities));
  const run = async (spec: SqlQuerySpec, partitionKey?: string): Promise<unknown[]> =>
    (await container.items.query<unknown>(spec, partitionKey === undefined ? {} : { partitionKey }).fetchAll())
      .resources;
  return {
    top1: async (i) => {
      const s = security(i);
      const rows = await run(
        {
          query:
            "SELECT TOP 1 * FROM c WHERE c.securityId=@s AND c.docType='price' AND c.date <= @d ORDER BY c.id DESC",
          parameters: [
            { name: "@s", value: s },
            { name: "@d", value: "2020-02-15" },
          ],
        },
        s,
      );
      if (rows.length !== 1) throw new Error(`TOP 1 for ${s} returned ${rows.length} rows`);
    },
    count: async (i) => {
      const s = security(i);
      const rows = await run(
        { query: "SELECT VALUE COUNT(1) FROM c WHERE c.securityId=@s", parameters: [{ name: "@s", value: s }] },
        s,
      );
      if (rows[0] !== PRICES_PER_SECURITY) throw new Error(`COUNT for ${s} returned ${JSON.stringify(rows)}`);
    },
    cross: async () => {
      const rows = await run({
        query: "SELECT VALUE COUNT(1) FROM c WHERE c.docType='price' AND c.date=@d",
        parameters: [{ name: "@d", value: "2020-01-05" }],
      });
      if (rows[0] !== securities) throw new Error(`cross-partition COUNT returned ${JSON.stringify(rows)}`);
    },
  };
}

async function measure(dataDir: string, documents: number, key: string, db: string): Promise<Figures> {
  writePriceSnapshot(join(dataDir, "cosmos"), db, documents);
  const port = await freePort();
  let standIn = await startStandIn(dataDir, port);
  const startMs = standIn.ms;
  if (standIn.documents !== documents)
    throw new Error(`stand-in restored ${standIn.documents} documents, expected ${documents}`);
  const client = new CosmosClient({
    endpoint: `http://127.0.0.1:${port}`,
    key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  try {
    const container = client.database(db).container("prices");
    const q = queries(container, documents / PRICES_PER_SECURITY);
    await sample(10, q.top1); // warm up: compiled queries, connections
    const top1 = await sample(SAMPLES, q.top1);
    const count = await sample(SAMPLES, q.count);
    const cross = await sample(CROSS_SAMPLES, q.cross);
    // A restart: some writes land in the journal, a clean stop compacts them into a snapshot, and the
    // next start restores it.
    await container.items.upsert({
      id: "2099-01-01|close|bench",
      securityId: securityIdFor(0),
      docType: "price",
      date: "2099-01-01",
      type: "close",
      source: "bench",
      price: 1,
      currency: "EUR",
    });
    const stopMs = await timed(() => standIn.child.stop());
    standIn = await startStandIn(dataDir, port);
    if (standIn.documents !== documents + 1)
      throw new Error(`after restart: ${standIn.documents} documents, expected ${documents + 1}`);
    await q.top1(1);
    return { documents, startMs, top1, count, cross, stopMs, restartMs: standIn.ms };
  } finally {
    client.dispose();
    await standIn.child.stop();
  }
}

/**
 * The Cosmos stand-in child process holding 10,000, 100,000 and 1,000,000 prices (partitions of 100):
 * p50 of a partition-scoped TOP 1 and COUNT through the SDK, a cross-partition COUNT, and the restart.
 * Target: the 1M TOP 1 p50 at most twice the 10k one.
 */
export async function benchStandInQuery(): Promise<boolean> {
  const settings = JSON.parse(readFileSync(join(projectRoot, "local.settings.example.json"), "utf8")) as {
    Values: Record<string, string>;
  };
  const key = settings.Values.COSMOS_KEY ?? "";
  // The service's own database: the largest store is then started as the local runtime's data.
  const db = settings.Values.COSMOS_DATABASE ?? "investment-data";
  const dataDir = mkdtempSync(join(tmpdir(), "ids-bench-stand-in-"));
  try {
    const figures: Figures[] = [];
    for (const size of SIZES) figures.push(await measure(dataDir, size, key, db));
    const met = report(figures);
    await benchApiOnLargeStore(dataDir, SIZES.at(-1) ?? 0);
    return met;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(figures: readonly Figures[]): boolean {
  console.log("\n== Cosmos stand-in: prices container, partitions of 100 documents, SDK against the child process ==");
  for (const f of figures) {
    console.log(
      `${f.documents.toLocaleString("en-US").padStart(9)} documents: TOP 1 p50 ${f.top1.toFixed(2)} ms  COUNT p50 ${f.count.toFixed(2)} ms  cross-partition COUNT p50 ${f.cross.toFixed(0)} ms  ` +
        `start from snapshot ${(f.startMs / 1000).toFixed(2)} s  stop (snapshot) ${(f.stopMs / 1000).toFixed(2)} s  restart ${(f.restartMs / 1000).toFixed(2)} s`,
    );
  }
  const base = figures[0];
  const top = figures.at(-1);
  if (base === undefined || top === undefined) return false;
  console.log(
    `restart with ${top.documents.toLocaleString("en-US")} documents: ${(top.restartMs / 1000).toFixed(2)} s`,
  );
  console.log(
    `COUNT p50: ${figures.map((f) => `${f.count.toFixed(2)} ms`).join(" → ")} (ratio ${(top.count / base.count).toFixed(2)})`,
  );
  const ratio = top.top1 / base.top1;
  console.log(resultLine("stand-in-query", top.top1, base.top1, 2));
  return ratio <= 2;
}
