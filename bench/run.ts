import { benchApiRead } from "./api-read";
import { benchImport } from "./import-prices";
import { benchValuation } from "./valuation";
import { startBenchRuntime } from "./harness";

/** `npm run bench`: starts its own local runtime and prints each benchmark's figures and target. */
async function main(): Promise<void> {
  const runtime = await startBenchRuntime();
  const results: boolean[] = [];
  try {
    const only = process.env.BENCH_ONLY;
    if (only === undefined || only === "read") results.push(await benchApiRead(runtime));
    if (only === undefined || only === "import") results.push(await benchImport(runtime));
    if (only === undefined || only === "valuation") await benchValuation(runtime);
  } finally {
    await runtime.stop();
  }
  console.log(`\n${results.every(Boolean) ? "all targets met" : "some targets NOT met"}`);
  process.exitCode = results.every(Boolean) ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
