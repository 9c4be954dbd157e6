import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { alive } from "../local/children";

/**
 * Waits until the child processes named by a data folder's pid files (the Cosmos stand-in, Azurite, the replica's server)
 * have exited: after a `kill -9` of the runtime, before starting it again on the same folder.
 */
export async function childrenGone(dataDir: string): Promise<void> {
  const pids = ["cosmos", "azurite", "replica"].flatMap((name) => {
    const file = join(dataDir, `${name}.pid`);
    return existsSync(file) ? [{ name, pid: Number(readFileSync(file, "utf8").trim()) }] : [];
  });
  await expect
    .poll(() => pids.filter(({ pid }) => alive(pid)).map(({ name, pid }) => `${name} (pid ${pid})`), {
      message: "the children still running after the runtime was killed",
      timeout: 30_000,
      interval: 100,
    })
    .toEqual([]);
}
