import { CosmosClient } from "@azure/cosmos";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDatabase } from "../shared/adapters/cosmos/cosmos-client";
import { nextMessage, startChild } from "../local/children";
import { freePort, projectRoot } from "../local/launch";
import { resultLine } from "./harness";

/**
 * A Functions worker's cold start, as a new Flex Consumption instance has one: from process start to
 * every function registered, and to the first answered request (GET /api/v1/openapi.json, whose rate
 * limit reads Cosmos DB), with Application Insights on as in Azure. The deployment package as shipped
 * (infra/package-app.js: the app bundled by esbuild) against the baseline of the same app unbundled
 * (the deployment build by tsc, loading the production node_modules), each started ROUNDS times in
 * turn, medians compared: `RESULT cold-start` (target: half the baseline's time or less), and
 * `RESULT cold-start-package` for the bytes each brings (the bundle's package against the unbundled
 * build plus the production node_modules it needs).
 */
const ROUNDS = Number(process.env.BENCH_COLD_START_ROUNDS ?? 5);
const COSMOS_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

interface Start {
  registeredMs: number;
  answeredMs: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const bytesUnder = (path: string): number => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
};

/** The production node_modules of package-lock.json (what `npm ci --omit=dev` installs), in bytes. */
function productionModulesBytes(): number {
  const lock = JSON.parse(readFileSync(join(projectRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true && entry.devOptional !== true)
    .reduce((sum, [path]) => {
      try {
        // Nested packages are counted once: a package's own folder without its node_modules.
        const dir = join(projectRoot, path);
        const nested = join(dir, "node_modules");
        return (
          sum + bytesUnder(dir) - (statSync(nested, { throwIfNoEntry: false })?.isDirectory() ? bytesUnder(nested) : 0)
        );
      } catch {
        return sum; // an optional package not installed on this platform
      }
    }, 0);
}

/** The unbundled app as a folder: the deployment build, the manifest, host.json, the console; the project's node_modules. */
function unbundledPackage(dir: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync(
    process.execPath,
    [
      require.resolve("typescript/bin/tsc"),
      "-p",
      join(projectRoot, "tsconfig.build.json"),
      "--outDir",
      join(dir, "dist"),
    ],
    { cwd: projectRoot, stdio: "inherit" },
  );
  for (const file of ["package.json", "host.json"]) cpSync(join(projectRoot, file), join(dir, file));
  cpSync(join(projectRoot, "shared", "console"), join(dir, "shared", "console"), { recursive: true });
  symlinkSync(join(projectRoot, "node_modules"), join(dir, "node_modules"), "dir");
}

/** Starts one worker on `appRoot` (local/app-worker.ts), asks its first request, and stops it. */
async function coldStart(appRoot: string, env: Record<string, string>): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(projectRoot, "dist", "local", "app-worker.js"), appRoot], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  try {
    const ready = await new Promise<{ port: number; registeredMs: number }>((resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const line = stdout.split("\n").find((l) => l.startsWith("{"));
        if (line !== undefined) resolve(JSON.parse(line) as { port: number; registeredMs: number });
      });
      child.once("exit", (code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
    });
    const response = await fetch(`http://127.0.0.1:${ready.port}/api/v1/openapi.json`);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`first request answered ${response.status}: ${stderr}`);
    return { registeredMs: ready.registeredMs, answeredMs: performance.now() - started };
  } finally {
    child.kill("SIGKILL");
  }
}

export async function benchColdStart(): Promise<boolean> {
  const work = mkdtempSync(join(tmpdir(), "ids-cold-start-"));
  const port = await freePort();
  const cosmos = startChild(
    work,
    "cosmos",
    join(projectRoot, "dist", "local", "cosmos-server.js"),
    [String(port), join(work, "cosmos"), "3600"],
    (line) => console.error(line),
  );
  try {
    await nextMessage(cosmos.process, "ready", 120_000);
    const endpoint = `http://127.0.0.1:${port}`;
    await ensureDatabase(
      new CosmosClient({ endpoint, key: COSMOS_KEY, connectionPolicy: { enableEndpointDiscovery: false } }),
      "bench",
    );
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { packageApp } = require(join(projectRoot, "infra", "package-app.js")) as {
      packageApp: (out: string) => { bytes: number };
    };
    const bundled = join(work, "bundled");
    const bundledBytes = packageApp(bundled).bytes;
    const unbundled = join(work, "unbundled");
    unbundledPackage(unbundled);
    const unbundledBytes = bytesUnder(join(unbundled, "dist")) + productionModulesBytes();

    const env = {
      COSMOS_ENDPOINT: endpoint,
      COSMOS_KEY,
      COSMOS_DATABASE: "bench",
      COSMOS_ENDPOINT_DISCOVERY: "false",
      JWT_SIGNING_KEY: Buffer.alloc(32, 7).toString("base64"),
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
      LOG_LEVEL: "warn",
      // As in Azure: telemetry on (its exports fail quietly: nothing listens there).
      APPLICATIONINSIGHTS_CONNECTION_STRING:
        "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/",
    };
    const runs: Record<"bundled" | "unbundled", Start[]> = { bundled: [], unbundled: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // In turn, starting with each as often: the machine's load falls on both alike.
      const order = round % 2 === 0 ? (["unbundled", "bundled"] as const) : (["bundled", "unbundled"] as const);
      for (const variant of order)
        runs[variant].push(await coldStart(variant === "bundled" ? bundled : unbundled, env));
    }
    const figures = (variant: "bundled" | "unbundled") => ({
      registered: median(runs[variant].map((r) => r.registeredMs)),
      answered: median(runs[variant].map((r) => r.answeredMs)),
    });
    const b = figures("bundled");
    const u = figures("unbundled");
    console.log(
      `\ncold start (median of ${ROUNDS}): bundled: registered ${b.registered.toFixed(0)} ms, first answer ${b.answered.toFixed(0)} ms (${(bundledBytes / 1048576).toFixed(1)} MB); ` +
        `unbundled: registered ${u.registered.toFixed(0)} ms, first answer ${u.answered.toFixed(0)} ms (${(unbundledBytes / 1048576).toFixed(1)} MB with the production node_modules)`,
    );
    console.log(resultLine("cold-start", b.answered, u.answered, 0.5));
    console.log(resultLine("cold-start-registered", b.registered, u.registered, 0.5));
    console.log(resultLine("cold-start-package", bundledBytes / 1048576, unbundledBytes / 1048576, 0.2));
    return b.answered <= 0.5 * u.answered;
  } finally {
    cosmos.process.kill("SIGKILL");
    rmSync(work, { recursive: true, force: true });
  }
}
