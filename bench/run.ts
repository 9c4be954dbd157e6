import { benchApiRead } from "./api-read";
import { benchColdStart } from "./cold-start";
import { benchExport } from "./export";
import { benchImport } from "./import-prices";
import { benchImportTransactions } from "./import-transactions";
import { benchIngestCsv } from "./ingest-csv";
import { benchSftpDropMemory } from "./sftp-drop-memory";
import { benchStandInQuery } from "./stand-in-query";
import { benchValuation } from "./valuation";
import { benchValuationExceptions } from "./valuation-exceptions";
import { benchWebhookDispatch } from "./webhook-dispatch";
import { startBenchRuntime } from "./harness";
import { benchReplica } from "./replica";

/**
 * `npm run bench`: prints each benchmark's figures and target. BENCH_ONLY=read|import|import-transactions|valuation|valuation-exceptions|ingest|export|sftp-memory|stand-in|webhooks|replica|cold-start
 * runs one (or several, comma-separated, in this file's order); the stand-in benchmark starts its own Cosmos stand-in, the others share one local runtime.
 */
async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(",");
  const wants = (name: string): boolean => only === undefined || only.includes(name);
  const results: boolean[] = [];
  if (
    wants("read") ||
    wants("import") ||
    wants("import-transactions") ||
    wants("valuation") ||
    wants("valuation-exceptions") ||
    wants("ingest") ||
    wants("export") ||
    wants("sftp-memory")
  ) {
    const runtime = await startBenchRuntime();
    try {
      if (wants("read")) results.push(await benchApiRead(runtime));
      if (wants("import")) results.push(await benchImport(runtime));
      if (wants("import") || wants("import-transactions")) results.push(await benchImportTransactions(runtime));
      if (wants("valuation")) await benchValuation(runtime);
      if (wants("valuation-exceptions")) results.push(await benchValuationExceptions(runtime));
      if (wants("ingest")) results.push(await benchIngestCsv(runtime));
      if (wants("export")) results.push(await benchExport(runtime));
      if (wants("sftp-memory")) results.push(await benchSftpDropMemory(runtime));
    } finally {
      await runtime.stop();
    }
  }
  if (wants("stand-in")) results.push(await benchStandInQuery());
  // Its own runtime: fast outbox relay and sweep schedules, private-network webhooks.
  if (wants("webhooks")) results.push(await benchWebhookDispatch());
  // Its own runtimes: the replica's lag under a sustained import, and its first backfill.
  if (wants("replica")) results.push(await benchReplica());
  // Its own workers and Cosmos stand-in: the deployment package's cold start, bundled against unbundled.
  if (wants("cold-start")) results.push(await benchColdStart());
  console.log(`\n${results.every(Boolean) ? "all targets met" : "some targets NOT met"}`);
  process.exitCode = results.every(Boolean) ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
