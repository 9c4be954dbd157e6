import { fork, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";

/** Whether something accepts TCP connections on the port right now. */
function listening(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Waits until something accepts TCP connections on the port, or throws after `timeoutMs`. */
export async function waitForPort(port: number, host: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await listening(port, host))) {
    if (Date.now() > deadline) throw new Error(`nothing is listening on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function isPortFree(port: number, host: string): Promise<boolean> {
  return !(await listening(port, host));
}

/** Whether a process is still there (signal 0 checks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` (read from a pid file) is a live process whose command line contains every one of
 * `fragments`: a pid file may outlive its process, and the pid be reused by another.
 */
export function liveProcessNaming(pid: number, ...fragments: string[]): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return false;
  }
  return fragments.every((fragment) => cmdline.includes(fragment));
}

/**
 * Kills a child left behind by a run that crashed (recorded in its pid file), so that its port is free
 * again. Only a process whose command line names the same script is touched.
 */
export async function killStale(dataDir: string, name: string, script: string): Promise<void> {
  const pidFile = join(dataDir, `${name}.pid`);
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  rmSync(pidFile, { force: true });
  if (!liveProcessNaming(pid, script)) return;
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

export interface Child {
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Forks a node script with an IPC channel and records its pid for crash recovery. */
export function startChild(
  dataDir: string,
  name: string,
  script: string,
  args: string[],
  log: (line: string) => void,
): Child {
  // LOCAL_CHILD_CPU_PROF=<dir> (benchmarks): the child writes a V8 CPU profile there when it exits.
  const profile = process.env.LOCAL_CHILD_CPU_PROF;
  const child = fork(script, args, {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    execArgv: profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profile}`],
  });
  writeFileSync(join(dataDir, `${name}.pid`), String(child.pid));
  child.stdout?.on("data", () => {});
  child.stderr?.on("data", (chunk: Buffer) => log(`[${name}] ${chunk.toString().trimEnd()}`));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // Closing the IPC channel is the stop signal our child scripts obey.
        if (child.connected) child.disconnect();
        else child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(join(dataDir, `${name}.pid`), { force: true });
    },
  };
}

/** Resolves with the first IPC message of the given type from the child. */
export function nextMessage(child: ChildProcess, type: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off("message", onMessage);
      reject(new Error(`no '${type}' message from child within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: unknown): void => {
      if (typeof message === "object" && message !== null && (message as { type?: unknown }).type === type) {
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(message);
      }
    };
    child.on("message", onMessage);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code}) before sending '${type}'`));
    });
  });
}
