/**
 * A Functions worker for one app folder, as Azure starts one: `node dist/local/app-worker.js <app root>`
 * loads the app through its package.json `main` (the local host's stand-in playing
 * `@azure/functions-core`), serves its HTTP functions on a free loopback port and prints one JSON line
 * when it listens: the port, the functions registered, and the milliseconds from process start to the
 * last registration. What the app logs goes to stderr. The cold-start benchmark and the tests of an app
 * whose settings are unusable start it; it serves until killed.
 */
import { Logger, type LogSink } from "../shared/logging";
import { installCore } from "./core-module";
import { loadFunctions } from "./functions-host";
import { HttpHost } from "./http-host";

async function main(): Promise<void> {
  const appRoot = process.argv[2];
  if (appRoot === undefined) throw new Error("usage: app-worker <app root>");
  installCore();
  const functions = loadFunctions(appRoot);
  const registeredMs = performance.now();
  const sink: LogSink = (level, line) => process.stderr.write(`${level} ${line}\n`);
  const host = new HttpHost(functions, { port: 0, host: "127.0.0.1", routePrefix: "", log: new Logger("info", sink) });
  const port = await host.start();
  process.stdout.write(
    `${JSON.stringify({
      type: "ready",
      port,
      registeredMs,
      functions: functions.map((f) => ({ name: f.name, trigger: f.trigger.type })),
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`app-worker: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
