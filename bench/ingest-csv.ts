import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CosmosClient, type JSONObject } from "@azure/cosmos";
import { parse } from "csv-parse";
import SftpClient from "ssh2-sftp-client";
import { bulkUpsert } from "../shared/adapters/cosmos/bulk";
import { adminToken, resultLine, type BenchRuntime } from "./harness";
import { dateAfter, isinFor, post, withPeakRss } from "./fixtures";

const SECURITIES = 2000;
const SECURITY_OFFSET = 500_000; // ISINs of their own, apart from the other benchmarks' securities
const BATCH = 10_000;
const FEEDS = "/api/v1/settings/feeds";

/** Row `i` of a file: securities cycle fastest, one date per full cycle; a gentle walk (no price jumps). */
function row(i: number, firstDay = 0): { isin: string; date: string; price: number } {
  const s = i % SECURITIES;
  const d = firstDay + Math.floor(i / SECURITIES);
  return { isin: isinFor(SECURITY_OFFSET + s), date: dateAfter("2020-01-01", d), price: Math.round((100 + s / 10 + d * 0.01) * 100) / 100 };
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

interface Feed {
  id: string;
  username: string;
  password: string;
}

async function createFeed(runtime: BenchRuntime, token: string, status: "testing" | "live"): Promise<Feed> {
  const reply = await post(runtime.baseUrl, token, FEEDS, {
    name: `bench prices ${status} ${Date.now()}`,
    provider: "Bench provider",
    dataType: "prices",
    format: "csv",
    filePattern: "prices-*.csv",
    mapping: { isin: "ISIN", date: "Date", price: "Price", currency: "Currency", type: "Type", source: "Source" },
    status,
  });
  if (reply.status !== 201) throw new Error(`feed create failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
  const data = (reply.body as { data: { id: string; sftp: { username: string; password: string } } }).data;
  return { id: data.id, username: data.sftp.username, password: data.sftp.password };
}

interface Job {
  status: string;
  fileName?: string;
  counts?: { received: number; accepted: number; rejected: number };
  errors?: unknown[];
}

/** Uploads `file` over SFTP into the feed's inbox and waits until its job is no longer running; seconds from upload start. */
async function dropAndWait(runtime: BenchRuntime, token: string, feed: Feed, file: string, fileName: string): Promise<{ seconds: number; uploadSeconds: number; job: Job }> {
  const sftp = new SftpClient();
  await sftp.connect({ host: "127.0.0.1", port: runtime.sftpPort, username: feed.username, password: feed.password, retries: 0, readyTimeout: 10_000 });
  const started = performance.now();
  try {
    await sftp.put(createReadStream(file), `/${fileName}`);
  } finally {
    await sftp.end().catch(() => undefined);
  }
  const uploadSeconds = (performance.now() - started) / 1000;
  const deadline = Date.now() + 60 * 60_000;
  for (;;) {
    const response = await fetch(`${runtime.baseUrl}/api/v1/jobs?feedId=${feed.id}&pageSize=100`, { headers: { Authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { data?: Job[] };
    const job = (body.data ?? []).find((j) => j.fileName === fileName && j.status !== "running");
    if (job !== undefined) return { seconds: (performance.now() - started) / 1000, uploadSeconds, job };
    if (Date.now() > deadline) throw new Error(`timed out waiting for the job of ${fileName}`);
    await new Promise((r) => setTimeout(r, 100));
  }
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
  const cosmos = new CosmosClient({ endpoint: runtime.cosmosEndpoint, key: runtime.cosmosKey, connectionPolicy: { enableEndpointDiscovery: false } });
  const { database } = await cosmos.databases.createIfNotExists({ id: "bench-raw-ingest" });
  const { container } = await database.containers.createIfNotExists({ id: "prices", partitionKey: { paths: ["/securityId"] } });
  const started = performance.now();
  for (let i = 0; i < rows; i += BATCH) {
    const docs: JSONObject[] = [];
    for (let j = i; j < Math.min(rows, i + BATCH); j++) {
      const r = row(j);
      docs.push({ isin: r.isin, date: r.date, price: r.price, currency: "EUR", type: "close", source: "bench-feed", id: `${r.date}|close|bench-feed`, securityId: `sec_${r.isin}`, docType: "price", updatedAt: new Date().toISOString() });
    }
    await bulkUpsert(container, docs);
  }
  const seconds = (performance.now() - started) / 1000;
  await database.delete();
  cosmos.dispose();
  return { seconds };
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/**
 * Issue 8 point 6: a prices CSV (BENCH_INGEST_ROWS, default 1,000,000) dropped over SFTP.
 * parse-csv: a `testing` feed (parse, map, validate, no writes) against csv-parse alone (target ≥ 0.4).
 * ingest-csv: a `live` feed end to end against raw SDK bulk upserts (target ≥ 0.5).
 * Peak RSS of the runtime for a 100,000-row file and the N-row file (target < 400 MB, growth < 20%).
 */
export async function benchIngestCsv(runtime: BenchRuntime): Promise<boolean> {
  const rows = Number(process.env.BENCH_INGEST_ROWS ?? 1_000_000);
  const token = await adminToken(runtime.baseUrl);
  const idle = await withPeakRss(runtime.pid, () => Promise.resolve());
  const dir = mkdtempSync(join(tmpdir(), "ids-bench-ingest-"));
  try {
    for (let s = 0; s < SECURITIES; s += 1000) {
      const securities = Array.from({ length: Math.min(1000, SECURITIES - s) }, (_, k) => ({ isin: isinFor(SECURITY_OFFSET + s + k), name: `Bench feed security ${s + k}`, assetClass: "equity", currency: "EUR" }));
      const created = await post(runtime.baseUrl, token, "/api/v1/import/securities", { securities });
      if (created.status !== 200) throw new Error(`securities import failed: ${JSON.stringify(created.body).slice(0, 500)}`);
    }
    const file = join(dir, "prices-n.csv");
    const genStarted = performance.now();
    const size = await writeCsv(file, rows);
    console.log(`\n== Ingest: ${rows.toLocaleString("en")}-row prices CSV (${mb(size)} MB, ${SECURITIES} securities), written in ${((performance.now() - genStarted) / 1000).toFixed(1)} s ==`);

    // parse-csv: a testing feed (dry run: nothing written).
    const parseBase = await parseBaseline(file);
    if (parseBase.rows !== rows) throw new Error(`csv-parse read ${parseBase.rows} rows, expected ${rows}`);
    const testing = await createFeed(runtime, token, "testing");
    const dry = await withPeakRss(runtime.pid, () => dropAndWait(runtime, token, testing, file, "prices-testing.csv"));
    if (dry.result.job.status !== "completed") throw new Error(`testing job: ${JSON.stringify(dry.result.job).slice(0, 1000)}`);
    const parseRate = rows / dry.result.seconds;
    const parseBaseRate = rows / parseBase.seconds;

    // The 100,000-row file through a live feed first (RSS reference), unless N is that file.
    let smallPeak: number | undefined;
    if (rows !== 100_000) {
      const small = join(dir, "prices-small.csv");
      // Other dates than the N-row file's, so that file finds nothing already written.
      await writeCsv(small, 100_000, Math.ceil(rows / SECURITIES) + 10);
      const smallFeed = await createFeed(runtime, token, "live");
      const run = await withPeakRss(runtime.pid, () => dropAndWait(runtime, token, smallFeed, small, "prices-small.csv"));
      if (run.result.job.status !== "completed") throw new Error(`100k live job: ${JSON.stringify(run.result.job).slice(0, 1000)}`);
      smallPeak = run.peakMb;
      console.log(`live feed, 100,000-row file:               ${(100_000 / run.result.seconds).toFixed(0)} rows/s (${run.result.seconds.toFixed(1)} s), peak RSS ${run.peakMb.toFixed(0)} MB`);
    }

    // ingest-csv: a second feed, live (another feed, so not a duplicate of the dry run's content).
    const raw = await rawBaseline(runtime, rows);
    const rawRate = rows / raw.seconds;
    const live = await createFeed(runtime, token, "live");
    const wet = await withPeakRss(runtime.pid, () => dropAndWait(runtime, token, live, file, "prices-live.csv"));
    if (wet.result.job.status !== "completed") throw new Error(`live job: ${JSON.stringify(wet.result.job).slice(0, 1000)}`);
    const ingestRate = rows / wet.result.seconds;
    const peakSmall = smallPeak ?? wet.peakMb;
    const growth = ((wet.peakMb - peakSmall) / peakSmall) * 100;

    const parseRatio = parseRate / parseBaseRate;
    const ingestRatio = ingestRate / rawRate;
    const maxPeak = Math.max(dry.peakMb, wet.peakMb);
    const rssMet = maxPeak < 400 && growth < 20;
    console.log(`csv-parse alone (columns: true), in the bench process: ${parseBaseRate.toFixed(0)} rows/s (${parseBase.seconds.toFixed(2)} s)`);
    console.log(`testing feed over SFTP (parse, map, validate): ${parseRate.toFixed(0)} rows/s (${dry.result.seconds.toFixed(1)} s, upload ${dry.result.uploadSeconds.toFixed(1)} s), job counts ${JSON.stringify(dry.result.job.counts)}, peak RSS ${dry.peakMb.toFixed(0)} MB`);
    console.log(`ratio parse-csv: ${parseRatio.toFixed(3)} (target ≥ 0.4) → ${parseRatio >= 0.4 ? "MET" : "NOT MET"}`);
    console.log(resultLine("parse-csv", parseRate, parseBaseRate, 0.4));
    console.log(`raw SDK bulk upserts into the stand-in:   ${rawRate.toFixed(0)} records/s (${raw.seconds.toFixed(1)} s)`);
    console.log(`live feed over SFTP, end to end:          ${ingestRate.toFixed(0)} rows/s (${wet.result.seconds.toFixed(1)} s, upload ${wet.result.uploadSeconds.toFixed(1)} s), job counts ${JSON.stringify(wet.result.job.counts)}, peak RSS ${wet.peakMb.toFixed(0)} MB`);
    console.log(`ratio ingest-csv: ${ingestRatio.toFixed(3)} (target ≥ 0.5) → ${ingestRatio >= 0.5 ? "MET" : "NOT MET"}`);
    console.log(resultLine("ingest-csv", ingestRate, rawRate, 0.5));
    console.log(`RSS of the runtime process before these runs: ${idle.peakMb.toFixed(0)} MB`);
    console.log(`peak RSS 100,000-row file ${peakSmall.toFixed(0)} MB, ${rows.toLocaleString("en")}-row file ${wet.peakMb.toFixed(0)} MB, growth ${growth.toFixed(1)}% (target < 400 MB, < 20%) → ${rssMet ? "MET" : "NOT MET"}`);
    return parseRatio >= 0.4 && ingestRatio >= 0.5 && rssMet;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
