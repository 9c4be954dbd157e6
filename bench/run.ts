import { benchApiRead } from "./api-read";
import { startBenchRuntime } from "./harness";

/** `npm run bench`: starts its own local runtime and prints each benchmark's figures and target. */
async function main(): Promise<void> {
  const runtime = await startBenchRuntime();
  const results: boolean[] = [];
  try {
    results.push(await benchApiRead(runtime));
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
