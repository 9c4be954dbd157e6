import { createReadStream, createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CosmosClient, type JSONObject } from "@azure/cosmos";
import { parse } from "csv-parse";
import { bulkUpsert } from "../shared/adapters/cosmos/bulk";
import { adminToken, resultLine, type BenchRuntime } from "./harness";
import { dateAfter, isinFor, post } from "./fixtures";
import { createFeed, dropAndWait, type Feed } from "./feed-drop";

const SECURITIES = 2000;
const SECURITY_OFFSET = 500_000; // ISINs of their own, apart from the other benchmarks' securities
const BATCH = 10_000;

/** Row `i` of a file: securities cycle fastest, one date per full cycle; a gentle walk (no price jumps). */
function row(i: number, firstDay = 0): { isin: string; date: string; price: number } {
  const s = i % SECURITIES;
  const d = firstDay + Math.floor(i / SECURITIES);
  return {
    isin: isinFor(SECURITY_OFFSET + s),
    date: dateAfter("2020-01-01", d),
    price: Math.round((100 + s / 10 + d * 0.01) * 100) / 100,
  };
}

/** Writes an `rows`-row prices CSV, streamed with back-pressure (never built in memory). */
async function writeCsv(path: string, rows: number, firstDay = 0): Promise<number> {
  const out = createWriteStream(path);
  out.write("ISIN,Date,Price,Currency,Type,Source\n");
  for (let i = 0; i < rows; i++) {
    const r = row(i, firstDay);
    if (!out.write(`${r.isin},${r.date},${r.price.toFixed(2)},EUR,close,bench-feed\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return statSync(path).size;
}

function createPricesFeed(runtime: BenchRuntime, token: string, status: "testing" | "live"): Promise<Feed> {
  return createFeed(runtime, token, {
    name: `bench prices ${status} ${Date.now()}`,
    provider: "Bench provider",
    dataType: "prices",
    format: "csv",
    filePattern: "prices-*.csv",
    mapping: { isin: "ISIN", date: "Date", price: "Price", currency: "Currency", type: "Type", source: "Source" },
    status,
  });
}

/** csv-parse alone (`columns: true`) over the file in this process: rows/s. */
async function parseBaseline(file: string): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  let rows = 0;
  const parser = createReadStream(file).pipe(parse({ columns: true }));
  for await (const _record of parser) rows++;
  return { rows, seconds: (performance.now() - started) / 1000 };
}

/** Raw SDK bulk upserts of the same price documents into the stand-in, generated 10,000 at a time. */
async function rawBaseline(runtime: BenchRuntime, rows: number): Promise<{ seconds: number }> {
  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await cosmos.databases.createIfNotExists({ id: "bench-raw-ingest" });
  const { container } = await database.containers.createIfNotExists({
    id: "prices",
    partitionKey: { paths: ["/securityId"] },
  });
  const started = performance.now();
  for (let i = 0; i < rows; i += BATCH) {
    const docs: JSONObject[] = [];
    for (let j = i; j < Math.min(rows, i + BATCH); j++) {
      const r = row(j);
      docs.push({
        isin: r.isin,
        date: r.date,
        price: r.price,
        currency: "EUR",
        type: "close",
        source: "bench-feed",
        id: `${r.date}|close|bench-feed`,
        securityId: `sec_${r.isin}`,
        docType: "price",
        updatedAt: new Date().toISOString(),
        // The current document carries its version, as the service stores it (no other write: versions
        // are recorded only when a record changes).
        recorded: {
          version: 1,
          at: new Date().toISOString(),
          by: "feed:bench",
          requestId: null,
          jobId: "job_bench",
          change: "created",
        },
      });
    }
    await bulkUpsert(container, docs);
  }
  const seconds = (performance.now() - started) / 1000;
  await database.delete();
  cosmos.dispose();
  return { seconds };
}

/**
 * BENCH_INGEST_PREFILL=N: N documents written straight into the service's store before the files, so
 * that per-row cost can be compared with a store of 10,000 and of 1,000,000+ documents. They are what
 * an ingested batch's reads could meet: one position snapshot in 10 (its own portfolio, 5 holdings of
 * other securities, a date within the files' reach), the rest prices of other securities (500 each).
 */
async function prefill(runtime: BenchRuntime, documents: number): Promise<number> {
  if (documents <= 0) return 0;
  const started = performance.now();
  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const database = cosmos.database(runtime.database);
  const snapshots = Math.floor(documents / 10);
  const securityId = (k: number): string => `sec_FILL${String(k).padStart(7, "0")}`;
  const updatedAt = new Date().toISOString();
  for (let i = 0; i < snapshots; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, snapshots - i) }, (_, k) => {
      const n = i + k;
      const securityIds = Array.from({ length: 5 }, (_, h) => securityId((n * 5 + h) % 100_000));
      const date = dateAfter("2020-06-01", n % 1000);
      return {
        id: `snap|${date}`,
        portfolioId: `pf_FILL${n}`,
        docType: "snapshot",
        date,
        securityIds,
        positions: securityIds.map((id) => ({ securityId: id, quantity: 10 })),
        updatedAt,
      };
    });
    await bulkUpsert(database.container("positions"), docs);
  }
  for (let i = 0; i < documents - snapshots; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, documents - snapshots - i) }, (_, k) => {
      const n = i + k;
      const date = dateAfter("2019-01-01", n % 500);
      return {
        id: `${date}|close|fill`,
        securityId: securityId(Math.floor(n / 500)),
        docType: "price",
        date,
        type: "close",
        source: "fill",
        price: 100,
        currency: "EUR",
        updatedAt,
      };
    });
    await bulkUpsert(database.container("prices"), docs);
  }
  cosmos.dispose();
  return (performance.now() - started) / 1000;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** Resident MB of one process, from /proc (0 once it is gone). */
function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

/** The processes whose parent is `pid` (the runtime's children: the Cosmos stand-in, Azurite). */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] === String(pid))
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * CPU seconds a process has used (user + system, from /proc; 0 once it is gone). Unlike wall time it
 * hardly moves with what else the machine runs, so per-row CPU compares runs on a busy machine.
 */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

interface Peaks {
  /** The runtime process: the functions and their hosts (HTTP, queue, timer, blob) and the SFTP server. */
  serviceMb: number;
  /** The runtime process with its children, the Cosmos stand-in (which holds the stored data) and Azurite. */
  allMb: number;
  /** CPU seconds used meanwhile by the runtime process, and by its children. */
  serviceCpu: number;
  childrenCpu: number;
}

/** Peak RSS while `run` goes on, sampled every 50 ms: the service process, and with its children. */
async function withPeaks<T>(pid: number, run: () => Promise<T>): Promise<{ result: T } & Peaks> {
  const children = childrenOf(pid);
  const peaks: Peaks = { serviceMb: 0, allMb: 0, serviceCpu: 0, childrenCpu: 0 };
  const cpu = (): [number, number] => [cpuSeconds(pid), children.reduce((sum, child) => sum + cpuSeconds(child), 0)];
  const [service0, children0] = cpu();
  const sample = (): void => {
    const service = rssMb(pid);
    peaks.serviceMb = Math.max(peaks.serviceMb, service);
    peaks.allMb = Math.max(
      peaks.allMb,
      children.reduce((sum, child) => sum + rssMb(child), service),
    );
  };
  sample();
  const timer = setInterval(sample, 50);
  try {
    const result = await run();
    sample();
    const [service1, children1] = cpu();
    return { result, ...peaks, serviceCpu: service1 - service0, childrenCpu: children1 - children0 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Issue 8 point 6: a prices CSV (BENCH_INGEST_ROWS, default 1,000,000) dropped over SFTP.
 * parse-csv: a `testing` feed (parse, map, validate, no writes), from the upload's end (the file
 * committed to `inbound`) to the completed job, against csv-parse alone over the local file (target
 * ≥ 0.4); the rate from the upload's start is printed too.
 * ingest-csv: a `live` feed end to end, from the upload's start, against raw SDK bulk upserts (target ≥ 0.5).
 * Peak RSS of the service (the runtime process, which runs the functions; the Cosmos stand-in holding
 * the data and Azurite are its child processes, printed apart) for a 100,000-row file and the N-row
 * file (target < 400 MB, growth < 20%).
 */
export async function benchIngestCsv(runtime: BenchRuntime): Promise<boolean> {
  const rows = Number(process.env.BENCH_INGEST_ROWS ?? 1_000_000);
  const token = await adminToken(runtime.baseUrl);
  const idle = await withPeaks(runtime.pid, () => Promise.resolve());
  const dir = mkdtempSync(join(tmpdir(), "ids-bench-ingest-"));
  try {
    const filled = Number(process.env.BENCH_INGEST_PREFILL ?? 0);
    if (filled > 0)
      console.log(
        `\nstore pre-filled with ${filled.toLocaleString("en")} documents in ${(await prefill(runtime, filled)).toFixed(1)} s`,
      );
    for (let s = 0; s < SECURITIES; s += 1000) {
      const securities = Array.from({ length: Math.min(1000, SECURITIES - s) }, (_, k) => ({
        isin: isinFor(SECURITY_OFFSET + s + k),
        name: `Bench feed security ${s + k}`,
        assetClass: "equity",
        currency: "EUR",
      }));
      const created = await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities });
      if (created.status !== 200)
        throw new Error(`securities import failed: ${JSON.stringify(created.body).slice(0, 500)}`);
    }
    const file = join(dir, "prices-n.csv");
    const genStarted = performance.now();
    const size = await writeCsv(file, rows);
    console.log(
      `\n== Ingest: ${rows.toLocaleString("en")}-row prices CSV (${mb(size)} MB, ${SECURITIES} securities), written in ${((performance.now() - genStarted) / 1000).toFixed(1)} s ==`,
    );

    // parse-csv: a testing feed (dry run: nothing written).
    const parseBase = await parseBaseline(file);
    if (parseBase.rows !== rows) throw new Error(`csv-parse read ${parseBase.rows} rows, expected ${rows}`);
    const testing = await createPricesFeed(runtime, token, "testing");
    const dry = await withPeaks(runtime.pid, () => dropAndWait(runtime, token, testing, file, "prices-testing.csv"));
    if (dry.result.job.status !== "completed")
      throw new Error(`testing job: ${JSON.stringify(dry.result.job).slice(0, 1000)}`);
    const parseRate = rows / dry.result.afterUploadSeconds;
    const parseRateWithUpload = rows / dry.result.seconds;
    const parseBaseRate = rows / parseBase.seconds;

    // The 100,000-row file through a live feed first (RSS reference), unless N is that file.
    let small: Peaks | undefined;
    if (rows !== 100_000) {
      const smallFile = join(dir, "prices-small.csv");
      // Other dates than the N-row file's, so that file finds nothing already written.
      await writeCsv(smallFile, 100_000, Math.ceil(rows / SECURITIES) + 10);
      const smallFeed = await createPricesFeed(runtime, token, "live");
      const run = await withPeaks(runtime.pid, () =>
        dropAndWait(runtime, token, smallFeed, smallFile, "prices-small.csv"),
      );
      if (run.result.job.status !== "completed")
        throw new Error(`100k live job: ${JSON.stringify(run.result.job).slice(0, 1000)}`);
      small = run;
      console.log(
        `live feed, 100,000-row file:               ${(100_000 / run.result.seconds).toFixed(0)} rows/s (${run.result.seconds.toFixed(1)} s), peak RSS service ${run.serviceMb.toFixed(0)} MB (with the stand-in and Azurite ${run.allMb.toFixed(0)} MB)`,
      );
    }

    // ingest-csv: a second feed, live (another feed, so not a duplicate of the dry run's content).
    const raw = await rawBaseline(runtime, rows);
    const rawRate = rows / raw.seconds;
    const live = await createPricesFeed(runtime, token, "live");
    const wet = await withPeaks(runtime.pid, () => dropAndWait(runtime, token, live, file, "prices-live.csv"));
    if (wet.result.job.status !== "completed")
      throw new Error(`live job: ${JSON.stringify(wet.result.job).slice(0, 1000)}`);
    const ingestRate = rows / wet.result.seconds;
    const peakSmall = small?.serviceMb ?? wet.serviceMb;
    const growth = ((wet.serviceMb - peakSmall) / peakSmall) * 100;
    const allSmall = small?.allMb ?? wet.allMb;

    const parseRatio = parseRate / parseBaseRate;
    const ingestRatio = ingestRate / rawRate;
    const maxPeak = Math.max(dry.serviceMb, wet.serviceMb);
    const rssMet = maxPeak < 400 && growth < 20;
    console.log(
      `csv-parse alone (columns: true), in the bench process: ${parseBaseRate.toFixed(0)} rows/s (${parseBase.seconds.toFixed(2)} s)`,
    );
    console.log(
      `testing feed (parse, map, validate), upload end to job done: ${parseRate.toFixed(0)} rows/s (${dry.result.afterUploadSeconds.toFixed(2)} s); from upload start ${parseRateWithUpload.toFixed(0)} rows/s (${dry.result.seconds.toFixed(1)} s, upload ${dry.result.uploadSeconds.toFixed(1)} s); job counts ${JSON.stringify(dry.result.job.counts)}, peak RSS service ${dry.serviceMb.toFixed(0)} MB`,
    );
    console.log(
      `ratio parse-csv: ${parseRatio.toFixed(3)} (target ≥ 0.4) → ${parseRatio >= 0.4 ? "MET" : "NOT MET"}; from upload start ${(parseRateWithUpload / parseBaseRate).toFixed(3)}`,
    );
    console.log(resultLine("parse-csv", parseRate, parseBaseRate, 0.4));
    console.log(
      `raw SDK bulk upserts into the stand-in:   ${rawRate.toFixed(0)} records/s (${raw.seconds.toFixed(1)} s)`,
    );
    console.log(
      `live feed over SFTP, end to end:          ${ingestRate.toFixed(0)} rows/s (${wet.result.seconds.toFixed(1)} s, upload ${wet.result.uploadSeconds.toFixed(1)} s), job counts ${JSON.stringify(wet.result.job.counts)}, peak RSS service ${wet.serviceMb.toFixed(0)} MB`,
    );
    console.log(
      `CPU per 1,000 rows of the live file: service ${((wet.serviceCpu / rows) * 1000 * 1000).toFixed(0)} ms, Cosmos stand-in and Azurite ${((wet.childrenCpu / rows) * 1000 * 1000).toFixed(0)} ms`,
    );
    console.log(
      `ratio ingest-csv: ${ingestRatio.toFixed(3)} (target ≥ 0.5) → ${ingestRatio >= 0.5 ? "MET" : "NOT MET"}`,
    );
    console.log(resultLine("ingest-csv", ingestRate, rawRate, 0.5));
    console.log(
      `RSS before these runs: service ${idle.serviceMb.toFixed(0)} MB, with the stand-in and Azurite ${idle.allMb.toFixed(0)} MB`,
    );
    console.log(
      `peak RSS of the service (the runtime process running the functions; the stand-in and Azurite are child processes): 100,000-row file ${peakSmall.toFixed(0)} MB, ${rows.toLocaleString("en")}-row file ${wet.serviceMb.toFixed(0)} MB, growth ${growth.toFixed(1)}% (target < 400 MB, < 20%) → ${rssMet ? "MET" : "NOT MET"}`,
    );
    console.log(
      `peak RSS with the stand-in (holding the stored data) and Azurite: 100,000-row file ${allSmall.toFixed(0)} MB, ${rows.toLocaleString("en")}-row file ${wet.allMb.toFixed(0)} MB (not a target)`,
    );
    return parseRatio >= 0.4 && ingestRatio >= 0.5 && rssMet;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
