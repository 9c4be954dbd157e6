/**
 * Child process of the local runtime: the SQL replica's PostgreSQL server (local/replica-postgres.ts).
 * Makes the cluster on first use, stops a server a killed runtime left behind, starts PostgreSQL on
 * 127.0.0.1, creates the replica database, and stops the server when the runtime goes away (it closes
 * our IPC channel, also when it was killed).
 *
 * argv: <port> <replica folder>. env: REPLICA_ADMIN_USER, REPLICA_ADMIN_PASSWORD, REPLICA_DATABASE.
 * IPC out: { type: "ready", created } (created: the cluster is new, so the replica is empty).
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { isPortFree } from "./children";
import { projectRoot } from "./launch";
import {
  ensureReachable,
  findBinaries,
  initCluster,
  prepareBinaries,
  serverAccount,
  startFailure,
  startServer,
  stopOrphan,
} from "./replica-postgres";

const say = (line: string): void => void process.stderr.write(`${line}\n`);
let server: ChildProcess | undefined;

async function connect(port: number, user: string, password: string, database: string): Promise<Client> {
  const client = new Client({ host: "127.0.0.1", port, user, password, database, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Waits until the server takes connections (or says why it will not). */
async function ready(
  server: ChildProcess,
  output: () => string,
  port: number,
  user: string,
  password: string,
): Promise<void> {
  const exited = new Promise<never>((_, reject) => server.once("exit", () => reject(startFailure(output(), port))));
  exited.catch(() => {});
  for (const deadline = Date.now() + 60_000; ;) {
    try {
      await Promise.race([connect(port, user, password, "postgres").then((c) => c.end()), exited]);
      return;
    } catch (error) {
      if (server.exitCode !== null || server.signalCode !== null) throw startFailure(output(), port);
      if (error instanceof Error && /password authentication failed/.test(error.message)) {
        throw new Error(
          "the replica's data folder was made with another REPLICA_ADMIN_PASSWORD: set that one again, or delete the folder to rebuild the replica",
          { cause: error },
        );
      }
      if (Date.now() > deadline)
        throw new Error(
          `the replica's PostgreSQL server is not taking connections after 60 s:\n${output().slice(-2000)}`,
          { cause: error },
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The replica database, and no way into the server's other databases for anyone but the admin. */
async function ensureDatabase(port: number, user: string, password: string, database: string): Promise<void> {
  const client = await connect(port, user, password, "postgres");
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    await client.query("REVOKE CONNECT ON DATABASE postgres FROM PUBLIC");
    await client.query("REVOKE CONNECT ON DATABASE template1 FROM PUBLIC");
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const [portText, folder] = process.argv.slice(2);
  const user = process.env.REPLICA_ADMIN_USER ?? "replica_admin";
  const password = process.env.REPLICA_ADMIN_PASSWORD;
  const database = process.env.REPLICA_DATABASE ?? "analytics";
  if (portText === undefined || folder === undefined || password === undefined)
    throw new Error("usage: replica-server <port> <folder> (REPLICA_ADMIN_PASSWORD in the environment)");
  const port = Number(portText);
  const dataDir = join(folder, "pgdata");
  mkdirSync(folder, { recursive: true });
  const binaries = findBinaries(projectRoot, join(folder, "lib"));
  prepareBinaries(binaries);
  const account = serverAccount();
  ensureReachable(dataDir, account);
  const began = Date.now();
  if (await stopOrphan(dataDir))
    say(`a PostgreSQL server left running by a previous run was stopped (${Date.now() - began} ms)`);
  if (!(await isPortFree(port, "127.0.0.1"))) throw startFailure("Address already in use", port);
  const created = initCluster(binaries, dataDir, user, password, account);

  let output = "";
  const started = startServer(binaries, dataDir, port, account, say);
  server = started;
  const collect = (chunk: Buffer): void => void (output = `${output}${chunk.toString()}`.slice(-8000));
  started.stdout?.on("data", collect);
  started.stderr?.on("data", collect);
  let stopping = false;
  let serving = false;
  started.once("exit", (code, signal) => {
    // Before it serves, the start-up check says why it stopped (and exits); after, this is news.
    if (!serving && !stopping) return;
    if (!stopping) say(`the replica's PostgreSQL server exited (${signal ?? code ?? ""})`);
    process.exit(stopping ? 0 : 1);
  });
  // The runtime stops us by closing the channel (also when it was killed): a fast shutdown (open
  // sessions end, committed data is safe), then we exit with the server.
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    started.kill("SIGINT");
    setTimeout(() => started.kill("SIGQUIT"), 50_000).unref();
  };
  process.on("disconnect", stop);
  process.on("SIGTERM", () => {});
  process.on("SIGINT", () => {});

  await ready(started, () => output, port, user, password);
  await ensureDatabase(port, user, password, database);
  serving = true;
  process.send?.({ type: "ready", created });
  if (!process.connected) stop();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `the replica's PostgreSQL server did not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  // Never leave a server behind that no one will stop.
  if (server !== undefined && server.exitCode === null && server.signalCode === null) {
    server.on("exit", () => process.exit(1));
    server.kill("SIGINT");
    setTimeout(() => process.exit(1), 20_000).unref();
  } else process.exit(1);
});
