import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { CosmosClient, type Container } from "@azure/cosmos";
import type { ExportFormat } from "../shared/domain/export-data";
import { dataSetColumns } from "../shared/app/exports/data-set-columns";
import { writeExport } from "../shared/formats/export/write-export";
import { startSftpTarget, type SftpTarget } from "../test/sftp-target";
import { createBenchPortfolios, dateAfter, importBenchSecurities, post, withPeakRss } from "./fixtures";
import { adminToken, resultLine, type BenchRuntime } from "./harness";

/** Transactions per portfolio: the import spreads the N rows over N / this portfolios. */
const PER_PORTFOLIO = 10_000;
const SECURITIES = 100;
const SECURITY_OFFSET = 700_000; // ISINs of their own, apart from the other benchmarks' securities
const BATCH = 10_000;
const IMPORT_CONCURRENCY = 2;
const SMALL_ROWS = 100_000;
const EXPORTS = "/api/v1/settings/exports";
const SFTP_USER = { username: "bench-export", password: "bench-export-password-0123" };

interface Run {
  id: string;
  status: "running" | "succeeded" | "failed";
  rows?: number;
  bytes?: number;
  error?: string;
  startedAt: string;
  completedAt?: string;
  fileName?: string;
}

async function api(
  runtime: BenchRuntime,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: { data?: unknown; error?: unknown } }> {
  const response = await fetch(`${runtime.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; error?: unknown } };
}

/** Creates the portfolios and securities, then imports `rows` pending buys (pending: no events to relay, so the runtime does only the import) through the REST import, 10,000 a request. */
export async function importTransactions(
  runtime: BenchRuntime,
  token: string,
  rows: number,
): Promise<{ portfolioIds: string[]; seconds: number }> {
  const started = performance.now();
  const securities = await importBenchSecurities(runtime.baseUrl, token, {
    count: SECURITIES,
    offset: SECURITY_OFFSET,
    name: "Bench export security",
  });
  const run = Date.now().toString(36);
  const portfolioIds = await createBenchPortfolios(runtime.baseUrl, token, {
    count: Math.ceil(rows / PER_PORTFOLIO),
    name: "Bench export",
    clientId: `bench-export-${run}`,
    codeOf: (p) => `BX-${run}-${String(p).padStart(4, "0")}`,
  });
  let next = 0;
  const batches = Math.ceil(rows / BATCH);
  await Promise.all(
    Array.from({ length: IMPORT_CONCURRENCY }, async () => {
      for (let b = next++; b < batches; b = next++) {
        const transactions = Array.from({ length: Math.min(BATCH, rows - b * BATCH) }, (_, k) => {
          const i = b * BATCH + k;
          const security = securities[i % SECURITIES];
          return {
            externalId: `BX-${run}-${i}`,
            portfolioId: portfolioIds[Math.floor(i / PER_PORTFOLIO)],
            isin: security?.isin,
            type: "buy",
            status: "pending",
            tradeDate: dateAfter("2020-01-01", i % 1500),
            quantity: 1 + (i % 97),
            price: Math.round((50 + (i % 500) / 10) * 100) / 100,
            fees: 1.25,
            currency: "EUR",
            source: "bench",
          };
        });
        const reply = await post(runtime.baseUrl, token, "/api/v1/import/transactions", { transactions });
        if (reply.status !== 200)
          throw new Error(`transactions import failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
      }
    }),
  );
  return { portfolioIds, seconds: (performance.now() - started) / 1000 };
}

/** Creates a (disabled: only run on demand) export to the SFTP target, runs it, and waits for the run to end. */
async function exportOnce(
  runtime: BenchRuntime,
  token: string,
  target: SftpTarget,
  format: ExportFormat,
  portfolioIds?: string[],
): Promise<{ run: Run; seconds: number }> {
  const created = await api(runtime, token, "POST", EXPORTS, {
    name: `bench transactions ${format} ${portfolioIds === undefined ? "all" : portfolioIds.length}`,
    dataType: "transactions",
    format,
    schedule: { frequency: "daily", time: "03:00", timezone: "UTC" },
    destination: { type: "sftp", host: "127.0.0.1", port: target.port, ...SFTP_USER, path: "/exports/bench" },
    fileName: `transactions_{date:yyyyMMdd}_{exportId}.${format}`,
    filters: { period: "all", ...(portfolioIds === undefined ? {} : { portfolioIds }) },
    status: "disabled",
  });
  if (created.status !== 201)
    throw new Error(`export create failed (${created.status}): ${JSON.stringify(created.body).slice(0, 500)}`);
  const id = (created.body.data as { id: string }).id;
  const accepted = await api(runtime, token, "POST", `${EXPORTS}/${id}/run`);
  if (accepted.status !== 202)
    throw new Error(`export run failed (${accepted.status}): ${JSON.stringify(accepted.body).slice(0, 500)}`);
  const runId = (accepted.body.data as Run).id;
  const deadline = Date.now() + 60 * 60_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const runs = await api(runtime, token, "GET", `${EXPORTS}/${id}/runs`);
    const run = (runs.body.data as Run[] | undefined)?.find((r) => r.id === runId);
    if (run !== undefined && run.status !== "running") {
      if (run.status !== "succeeded" || run.completedAt === undefined)
        throw new Error(`the ${format} export run failed: ${run.error ?? "no error given"}`);
      return { run, seconds: (Date.parse(run.completedAt) - Date.parse(run.startedAt)) / 1000 };
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the ${format} export run`);
  }
}

/** The raw rate: the same transactions read with the SDK (query pages, partition by partition) and written by the same writer to a local file. */
async function rawExport(
  container: Container,
  portfolioIds: string[],
  format: ExportFormat,
  file: string,
): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  async function* records(): AsyncGenerator<Record<string, unknown>> {
    for (const portfolioId of portfolioIds) {
      const pages = container.items.query<Record<string, unknown>>("SELECT * FROM c WHERE c.docType = 'transaction'", {
        partitionKey: portfolioId,
        maxItemCount: 1000,
      });
      while (pages.hasMoreResults()) yield* (await pages.fetchNext()).resources;
    }
  }
  const { columns, columnTypes } = dataSetColumns.transactions;
  const written = writeExport(
    format,
    { exportId: "raw", dataType: "transactions", generatedAt: new Date().toISOString() },
    { columns, columnTypes, records: records() },
  );
  const out = createWriteStream(file);
  await pipeline(written.stream, out);
  return { rows: written.rows(), seconds: (performance.now() - started) / 1000 };
}

const perSecond = (rows: number, seconds: number): number => rows / Math.max(seconds, 0.001);
const fmt = (n: number): string => Math.round(n).toLocaleString("en");

/**
 * Issue 9 point 6: N transactions (BENCH_EXPORT_ROWS, default 1,000,000; imported first through the
 * REST import) exported through the HTTP API to an SFTP target (test/sftp-target.ts) as CSV, then
 * XLSX: rows/s over the run's own duration (startedAt → completedAt), against the raw rate of reading
 * the same rows with the SDK and writing them with the same writer to a local file (CSV target ≥ 0.5;
 * XLSX reported). Peak RSS of the service (the runtime process) for a 100,000-row and the N-row CSV
 * export (target < 400 MB and flat: growth < 20%).
 */
export async function benchExport(runtime: BenchRuntime): Promise<boolean> {
  const rows = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
  const token = await adminToken(runtime.baseUrl);
  const dir = mkdtempSync(join(tmpdir(), "ids-bench-export-"));
  const target = await startSftpTarget({ users: [SFTP_USER], root: join(dir, "sftp") });
  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  try {
    console.log(`\nexport: importing ${fmt(rows)} transactions (${Math.ceil(rows / PER_PORTFOLIO)} portfolios) …`);
    const idle = await withPeakRss(runtime.pid, () => Promise.resolve());
    const { portfolioIds, seconds: importSeconds } = await importTransactions(runtime, token, rows);
    const imported = await withPeakRss(runtime.pid, () => Promise.resolve());
    console.log(
      `  imported in ${importSeconds.toFixed(1)} s (${fmt(perSecond(rows, importSeconds))} rows/s); service RSS ${idle.peakMb.toFixed(0)} MB before, ${imported.peakMb.toFixed(0)} MB after`,
    );
    const container = cosmos.database(runtime.database).container("transactions");

    const smallIds = portfolioIds.slice(0, Math.max(1, Math.floor(Math.min(SMALL_ROWS, rows) / PER_PORTFOLIO)));
    const small = await withPeakRss(runtime.pid, () => exportOnce(runtime, token, target, "csv", smallIds));
    // This benchmark's own portfolios: earlier benchmarks of the same run (import-transactions) store
    // transactions too, and the raw export below reads these portfolios only.
    const csv = await withPeakRss(runtime.pid, () => exportOnce(runtime, token, target, "csv", portfolioIds));
    const csvFile = statSync(join(target.root, "exports/bench", csv.result.run.fileName ?? ""));
    if (csv.result.run.rows !== rows || csvFile.size !== csv.result.run.bytes)
      throw new Error(
        `the CSV run wrote ${csv.result.run.rows} rows, ${csv.result.run.bytes} bytes; the file has ${csvFile.size} bytes`,
      );
    const rawCsv = await rawExport(container, portfolioIds, "csv", join(dir, "raw.csv"));
    const xlsx = await withPeakRss(runtime.pid, () => exportOnce(runtime, token, target, "xlsx", portfolioIds));
    const rawXlsx = await rawExport(container, portfolioIds, "xlsx", join(dir, "raw.xlsx"));

    const csvRate = perSecond(rows, csv.result.seconds);
    const rawCsvRate = perSecond(rawCsv.rows, rawCsv.seconds);
    const xlsxRate = perSecond(rows, xlsx.result.seconds);
    const rawXlsxRate = perSecond(rawXlsx.rows, rawXlsx.seconds);
    const growth = ((csv.peakMb - small.peakMb) / small.peakMb) * 100;
    const rssMet = Math.max(small.peakMb, csv.peakMb, xlsx.peakMb) < 400 && growth < 20;
    const csvMet = csvRate / rawCsvRate >= 0.5;
    console.log(
      `  CSV:  ${fmt(rows)} rows, ${(csvFile.size / 1024 / 1024).toFixed(1)} MB to SFTP in ${csv.result.seconds.toFixed(1)} s = ${fmt(csvRate)} rows/s; raw SDK read + the same writer to a local file ${rawCsv.seconds.toFixed(1)} s = ${fmt(rawCsvRate)} rows/s → ratio ${(csvRate / rawCsvRate).toFixed(2)} (target ≥ 0.5) ${csvMet ? "MET" : "NOT MET"}`,
    );
    console.log(
      `  XLSX: ${fmt(rows)} rows, ${((xlsx.result.run.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB to SFTP in ${xlsx.result.seconds.toFixed(1)} s = ${fmt(xlsxRate)} rows/s; raw ${rawXlsx.seconds.toFixed(1)} s = ${fmt(rawXlsxRate)} rows/s → ratio ${(xlsxRate / rawXlsxRate).toFixed(2)} (reported)`,
    );
    console.log(
      `  peak RSS of the service (the runtime process): ${fmt(small.result.run.rows ?? 0)}-row CSV ${small.peakMb.toFixed(0)} MB, ${fmt(rows)}-row CSV ${csv.peakMb.toFixed(0)} MB (growth ${growth.toFixed(1)}%), ${fmt(rows)}-row XLSX ${xlsx.peakMb.toFixed(0)} MB (target < 400 MB, growth < 20%) → ${rssMet ? "MET" : "NOT MET"}`,
    );
    console.log(resultLine("export-csv", csvRate, rawCsvRate, 0.5));
    console.log(resultLine("export-xlsx", xlsxRate, rawXlsxRate, 0).replace(/target=\S+$/, "target=report"));
    return csvMet && rssMet;
  } finally {
    cosmos.dispose();
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
