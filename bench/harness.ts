import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchRuntime, localComponentEnv, projectRoot } from "../local/launch";

export const ADMIN = { id: "bench-admin", secret: "bench-admin-secret-0123456789" };

export interface BenchRuntime {
  baseUrl: string;
  cosmosEndpoint: string;
  cosmosKey: string;
  database: string;
  pid: number;
  /** The SFTP drop's actual port (feeds show SFTP_PORT; the bench runtime listens on a free one). */
  sftpPort: number;
  stop(): Promise<void>;
}

/**
 * BENCH_CPU_PROF=<dir>: the service and its children (the Cosmos stand-in, Azurite) write V8 CPU
 * profiles there when they exit; `node dist/bench/profile-summary.js <dir>` summarises them.
 */
export const profiling: { env: Record<string, string>; execArgv: string[] } =
  process.env.BENCH_CPU_PROF === undefined
    ? { env: {}, execArgv: [] }
    : {
        env: { LOCAL_CHILD_CPU_PROF: process.env.BENCH_CPU_PROF },
        execArgv: ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`],
      };

/** Starts the local runtime (as `npm start` does) on free ports with a throw-away data folder. */
export async function startBenchRuntime(
  extraEnv: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<BenchRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), "ids-bench-"));
  const env: Record<string, string> = {
    ...(await localComponentEnv(dataDir)),
    BOOTSTRAP_CLIENT_ID: ADMIN.id,
    BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
    // The limiter still runs on every request (that is part of what is measured); only its ceiling is raised.
    RATE_LIMIT_PREMIUM_PER_MINUTE: "100000000",
    RATE_LIMIT_PREMIUM_PER_DAY: "1000000000",
    LOG_LEVEL: "warn",
    // No SQL replica: in Azure the Flex Consumption plan scales each change-feed function on instances
    // of its own (only HTTP, blob and Durable functions share theirs), so the replica's projection never
    // takes CPU from an import or a file's ingestion there; here it would share the same two cores. The
    // replica's cost is measured by its own benchmarks (bench/replica.ts), on runtimes of their own.
    ORGANISATION_PLAN: "premium",
    ...profiling.env,
    ...extraEnv,
  };
  const runtime = await launchRuntime(env, { execArgv: [...execArgv, ...profiling.execArgv], timeoutMs: 60_000 });
  const settings = JSON.parse(readFileSync(join(projectRoot, "local.settings.example.json"), "utf8")) as {
    Values: Record<string, string>;
  };
  return {
    baseUrl: runtime.baseUrl,
    cosmosEndpoint: env.COSMOS_ENDPOINT ?? "",
    cosmosKey: settings.Values.COSMOS_KEY ?? "",
    database: settings.Values.COSMOS_DATABASE ?? "investment-data",
    pid: runtime.child.pid ?? 0,
    sftpPort: runtime.sftpPort,
    async stop() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function adminToken(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: ADMIN.id, client_secret: ADMIN.secret }),
  });
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

/** Runs `op` in `concurrency` loops for `seconds`; returns operations per second and latency percentiles (ms). */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  op: () => Promise<unknown>,
): Promise<{ rate: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await op();
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rate: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

const figure = (n: number): string => String(Number(n.toFixed(3)));

/**
 * The one machine-readable line each benchmark prints beside its human lines:
 * `RESULT <name> value=<figure> baseline=<figure> ratio=<value/baseline> target=<target>`.
 */
export function resultLine(name: string, value: number, baseline: number, target: number): string {
  return `RESULT ${name} value=${figure(value)} baseline=${figure(baseline)} ratio=${figure(value / baseline)} target=${figure(target)}`;
}
