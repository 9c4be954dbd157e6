import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(__dirname, "..", "..");
export const ADMIN = { id: "bench-admin", secret: "bench-admin-secret-0123456789" };

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

export interface BenchRuntime {
  baseUrl: string;
  cosmosEndpoint: string;
  cosmosKey: string;
  database: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the local runtime (as `npm start` does) on free ports with a throw-away data folder. */
export async function startBenchRuntime(extraEnv: Record<string, string> = {}, execArgv: string[] = []): Promise<BenchRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), "ids-bench-"));
  const [http, cosmos, blob, queue] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env: Record<string, string> = {
    PORT: String(http),
    LOCAL_DATA_DIR: dataDir,
    COSMOS_ENDPOINT: `http://127.0.0.1:${cosmos}`,
    STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:${blob}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${queue}/devstoreaccount1;`,
    BOOTSTRAP_CLIENT_ID: ADMIN.id,
    BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
    // The limiter still runs on every request (that is part of what is measured); only its ceiling is raised.
    RATE_LIMIT_PREMIUM_PER_MINUTE: "100000000",
    RATE_LIMIT_PREMIUM_PER_DAY: "1000000000",
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  const child: ChildProcess = fork(join(root, "dist", "local", "main.js"), [], { cwd: root, execArgv, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    child.on("message", (m: { type?: string; baseUrl?: string }) => m.type === "ready" && m.baseUrl !== undefined && resolveUrl(m.baseUrl));
    child.once("exit", (code) => reject(new Error(`runtime exited with ${code}`)));
  });
  const settings = JSON.parse(require("node:fs").readFileSync(join(root, "local.settings.example.json"), "utf8")) as { Values: Record<string, string> };
  return {
    baseUrl,
    cosmosEndpoint: env.COSMOS_ENDPOINT ?? "",
    cosmosKey: settings.Values.COSMOS_KEY ?? "",
    database: settings.Values.COSMOS_DATABASE ?? "investment-data",
    pid: child.pid ?? 0,
    async stop() {
      child.kill("SIGTERM");
      await exited;
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
export async function closedLoop(concurrency: number, seconds: number, op: () => Promise<unknown>): Promise<{ rate: number; p50: number; p99: number; errors: number }> {
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
