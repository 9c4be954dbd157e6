import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { bulkUpsert } from "../shared/adapters/cosmos/bulk";
import { deriveAmounts } from "../shared/domain/transaction";
import { transactionIdOf } from "../shared/app/investments/import/import-transactions";
import { adminToken, resultLine, type BenchRuntime } from "./harness";
import { createBenchPortfolios, dateAfter, importBenchSecurities, isinFor, post } from "./fixtures";
import { childrenOf, cpuSeconds } from "./ingest-csv";
import { createFeed, dropAndWait } from "./feed-drop";

const PORTFOLIOS = 10;
const PER_PORTFOLIO = 10_000; // 10 × 10,000 = 100,000 transactions
const SECURITIES = 100;
const SECURITY_OFFSET = 800_000; // ISINs of their own, apart from the other benchmarks' securities
const BATCH = 10_000;

interface TransactionRecord {
  externalId: string;
  portfolioId: string;
  isin: string;
  type: "buy";
  status: "pending";
  tradeDate: string;
  settlementDate: string;
  quantity: number;
  price: number;
  fees: number;
  currency: string;
  source: string;
}

/** Pending buys (no events, as in the export benchmark's set-up), one portfolio per 10,000. */
function transactionsOf(run: string, portfolioIds: readonly string[]): TransactionRecord[] {
  return portfolioIds.flatMap((portfolioId, p) =>
    Array.from({ length: PER_PORTFOLIO }, (_, k) => {
      const i = p * PER_PORTFOLIO + k;
      const tradeDate = dateAfter("2021-01-04", i % 1000);
      return {
        externalId: `TX-${run}-${i}`,
        portfolioId,
        isin: isinFor(SECURITY_OFFSET + (i % SECURITIES)),
        type: "buy",
        status: "pending",
        tradeDate,
        settlementDate: dateAfter(tradeDate, 2),
        quantity: 1 + (i % 97),
        price: Math.round((50 + (i % 500) / 10) * 100) / 100,
        fees: 1.25,
        currency: "EUR",
        source: "bench",
      } as const;
    }),
  );
}

/** The records as a CSV file, one row each, streamed to `path`. */
async function writeTransactionsCsv(path: string, records: readonly TransactionRecord[]): Promise<void> {
  const out = createWriteStream(path);
  out.write("trade_id,portfolio_id,isin,type,status,trade_date,settlement_date,quantity,price,fees,currency\n");
  for (const r of records) {
    const line = `${r.externalId},${r.portfolioId},${r.isin},${r.type},${r.status},${r.tradeDate},${r.settlementDate},${r.quantity},${r.price},${r.fees},${r.currency}\n`;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/**
 * The same kind of records as a file: a CSV of 100,000 other transactions dropped over SFTP into a
 * live transactions feed, from the upload's start to the job's completion: records/s.
 */
async function fileImport(
  runtime: BenchRuntime,
  token: string,
  run: string,
  portfolioIds: readonly string[],
): Promise<{ rate: number; seconds: number; accepted: number }> {
  const records = transactionsOf(`${run}-file`, portfolioIds);
  const dir = mkdtempSync(join(tmpdir(), "ids-bench-transactions-"));
  try {
    const file = join(dir, "transactions.csv");
    await writeTransactionsCsv(file, records);
    const feed = await createFeed(runtime, token, {
      name: `bench transactions ${run}`,
      provider: "Bench broker",
      dataType: "transactions",
      format: "csv",
      filePattern: "transactions-*.csv",
      mapping: {
        externalId: "trade_id",
        portfolioId: "portfolio_id",
        isin: "isin",
        type: "type",
        status: "status",
        tradeDate: "trade_date",
        settlementDate: "settlement_date",
        quantity: "quantity",
        price: "price",
        fees: "fees",
        currency: "currency",
        source: { value: "bench" },
      },
      status: "live",
    });
    const { seconds, job } = await dropAndWait(runtime, token, feed, file, `transactions-${run}.csv`);
    const accepted = job.counts?.accepted ?? 0;
    if (job.status !== "completed" || accepted !== records.length)
      throw new Error(`the transactions file's job ended ${job.status} with ${accepted} of ${records.length} accepted`);
    return { rate: records.length / seconds, seconds, accepted };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * 100,000 pending transactions through POST /api/v1/import/transactions in batches of 10,000, against
 * bulk upserts of the same documents (as the service stores them: derived amounts, status history)
 * straight into the Cosmos stand-in with the SDK; then 100,000 others as a CSV file through a live
 * feed. Target: API and file ≥ 0.5 × raw.
 */
export async function benchImportTransactions(runtime: BenchRuntime): Promise<boolean> {
  const token = await adminToken(runtime.baseUrl);
  const run = Date.now().toString(36);
  await importBenchSecurities(runtime.baseUrl, token, {
    count: SECURITIES,
    offset: SECURITY_OFFSET,
    name: "Bench transaction security",
  });
  const portfolioIds = await createBenchPortfolios(runtime.baseUrl, token, {
    count: PORTFOLIOS,
    name: "Bench transactions",
    clientId: `bench-tx-${run}`,
    codeOf: (p) => `BT-${run}-${p}`,
  });
  const records = transactionsOf(run, portfolioIds);

  // Raw: the same documents (id, partition key and fields as the service stores them), SDK bulk upserts.
  const cosmos = new CosmosClient({
    endpoint: runtime.cosmosEndpoint,
    key: runtime.cosmosKey,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await cosmos.databases.createIfNotExists({ id: "bench-raw-transactions" });
  const { container } = await database.containers.createIfNotExists({
    id: "transactions",
    partitionKey: { paths: ["/portfolioId"] },
  });
  const now = new Date().toISOString();
  const rawStarted = performance.now();
  for (let i = 0; i < records.length; i += BATCH) {
    const docs = records.slice(i, i + BATCH).map(({ isin, ...r }) => {
      const id = transactionIdOf(r.portfolioId, r.externalId);
      const amounts = deriveAmounts(r);
      return {
        ...r,
        id,
        securityId: `sec_${isin}`,
        grossAmount: amounts?.grossAmount ?? null,
        netAmount: amounts?.netAmount ?? null,
        statusHistory: [{ status: r.status, at: now, source: r.source }],
        createdAt: now,
        updatedAt: now,
        docType: "transaction",
        sortKey: `${r.tradeDate}|${id}`,
      };
    });
    await bulkUpsert(container, docs);
  }
  const rawSeconds = (performance.now() - rawStarted) / 1000;
  const rawRate = records.length / rawSeconds;
  await database.delete();
  cosmos.dispose();

  const children = childrenOf(runtime.pid);
  const cpu = (): [number, number] => [
    cpuSeconds(runtime.pid),
    children.reduce((sum, child) => sum + cpuSeconds(child), 0),
  ];
  const [service0, children0] = cpu();
  const started = performance.now();
  const times: number[] = [];
  for (let i = 0; i < records.length; i += BATCH) {
    const reply = await post(runtime.baseUrl, token, "/api/v1/import/transactions", {
      transactions: records.slice(i, i + BATCH),
    });
    if (reply.status !== 200)
      throw new Error(`transactions import failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
    times.push(reply.ms);
  }
  const seconds = (performance.now() - started) / 1000;
  const [service1, children1] = cpu();
  const apiRate = records.length / seconds;
  // The same batch again: every transaction found unchanged, nothing rewritten.
  const again = await post(runtime.baseUrl, token, "/api/v1/import/transactions", {
    transactions: records.slice(0, BATCH),
  });
  const file = await fileImport(runtime, token, run, portfolioIds);
  const ratio = apiRate / rawRate;
  const fileRatio = file.rate / rawRate;
  const met = ratio >= 0.5 && fileRatio >= 0.5;
  console.log("\n== Import: 100,000 pending transactions (10 portfolios), batches of 10,000 ==");
  console.log(`raw SDK bulk upserts into the stand-in:  ${rawRate.toFixed(0)} records/s (${rawSeconds.toFixed(2)} s)`);
  console.log(
    `API POST /api/v1/import/transactions:    ${apiRate.toFixed(0)} records/s (${seconds.toFixed(2)} s; per batch ${times.map((t) => (t / 1000).toFixed(2)).join(", ")} s)`,
  );
  console.log(
    `CPU per 1,000 records imported: service ${(((service1 - service0) / records.length) * 1e6).toFixed(0)} ms, Cosmos stand-in and Azurite ${(((children1 - children0) / records.length) * 1e6).toFixed(0)} ms`,
  );
  console.log(
    `re-import of one unchanged batch:        ${(again.ms / 1000).toFixed(2)} s → ${JSON.stringify((again.body as { data?: unknown }).data)}`,
  );
  console.log(
    `file: CSV over SFTP into a live feed:    ${file.rate.toFixed(0)} records/s (${file.seconds.toFixed(2)} s from the upload's start to the job's end)`,
  );
  console.log(
    `ratio API/raw: ${ratio.toFixed(3)}, file/raw: ${fileRatio.toFixed(3)} (target ≥ 0.5) → ${met ? "MET" : "NOT MET"}`,
  );
  console.log(resultLine("import-transactions", apiRate, rawRate, 0.5));
  console.log(resultLine("import-transactions-file", file.rate, rawRate, 0.5));
  return met;
}
