import { Logger } from "../shared/logging";
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { describe, expect, inject, it } from "vitest";
import { registerBlobTriggerReferences } from "../shared/adapters/blob/blob-trigger-reference";
import { subscribeContainer } from "../test/blob-events";
import { tempDir } from "../test/runtime";
import { BlobHost } from "./blob-host";
import type { LoadedFunction } from "./functions-host";

/** The hosts' own log lines are not what these tests look at. */
const quiet = new Logger("error", () => undefined);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(50);
  }
};

registerBlobTriggerReferences();

/** A blob function as feed-files-ingest registers it: Event Grid source, a reference (sdkBinding). */
const blobFunction = (
  name: string,
  path: string,
  handler: (blob: unknown) => unknown,
  trigger: Record<string, unknown> = {},
): LoadedFunction => ({
  name,
  trigger: {
    direction: "in",
    type: "blobTrigger",
    path,
    connection: "AzureWebJobsStorage",
    source: "EventGrid",
    properties: { supportsDeferredBinding: "true" },
    ...trigger,
  },
  handler: handler,
});

describe("local blob host (on Azurite)", () => {
  const connection = (): string => inject("storageConnectionString");

  it("reads its events at once when notified, not at the next poll; stop() does not wait for the poll", async () => {
    const containerName = `notify-${randomUUID().slice(0, 8)}`;
    const seen: unknown[] = [];
    const fn = await subscribeContainer(connection(), containerName, "on-blob");
    const definition = blobFunction(fn, `${containerName}/{name}`, (blob) => void seen.push(blob));
    // A poll far beyond this test: only notify() can bring the blob in.
    const container = BlobServiceClient.fromConnectionString(connection()).getContainerClient(containerName);
    await container.createIfNotExists();
    // The first read takes the event waiting at start; once it ran, the host idles until told.
    await container.getBlockBlobClient("first.csv").upload("first", 5);
    const host = new BlobHost([definition], connection(), quiet, { pollMs: 600_000 });
    await host.start();
    const named = (blobName: string) => ({ connection: "AzureWebJobsStorage", containerName, blobName });
    try {
      await until(() => seen.length === 1);
      expect(seen).toEqual([named("first.csv")]);
      await container.getBlockBlobClient("a.csv").upload("a", 1);
      await sleep(500);
      expect(seen).toHaveLength(1);
      host.notify();
      await until(() => seen.length === 2, 5_000);
      expect(seen).toEqual([named("first.csv"), named("a.csv")]);
    } finally {
      const stopping = Date.now();
      await host.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000);
    }
  });

  it("hands the function a reference to the blob, never its bytes, whatever the blob's size or name", async () => {
    const containerName = `ref-${randomUUID().slice(0, 8)}`;
    const seen: unknown[] = [];
    const fn = await subscribeContainer(connection(), containerName, "on-blob");
    const host = new BlobHost(
      [blobFunction(fn, `${containerName}/{name}`, (blob) => void seen.push(blob))],
      connection(),
      quiet,
      { pollMs: 50 },
    );
    await host.start();
    try {
      const container = BlobServiceClient.fromConnectionString(connection()).getContainerClient(containerName);
      await container.createIfNotExists();
      await container.getBlockBlobClient("big.csv").upload(Buffer.alloc(8 * 1024 * 1024, 65), 8 * 1024 * 1024);
      // A line separator in a name: still a blob to run (a regex `.` would not match it).
      await container.getBlockBlobClient("a\u2028b.csv").upload("x", 1);
      await until(() => seen.length === 2);
      expect(seen).toEqual(
        expect.arrayContaining([
          { connection: "AzureWebJobsStorage", containerName, blobName: "big.csv" },
          { connection: "AzureWebJobsStorage", containerName, blobName: "a\u2028b.csv" },
        ]),
      );
    } finally {
      await host.stop();
    }
  });

  it("refuses to start a blob trigger that names no Event Grid source or takes the blob's content", async () => {
    const path = `never-${randomUUID().slice(0, 8)}/{name}`;
    await expect(
      new BlobHost([blobFunction("no-source", path, () => {}, { source: undefined })], connection(), quiet).start(),
    ).rejects.toThrow(/function 'no-source': its blob trigger names no source; register it with source: "EventGrid"/);
    await expect(
      new BlobHost(
        [blobFunction("polling", path, () => {}, { source: "LogsAndContainerScan" })],
        connection(),
        quiet,
      ).start(),
    ).rejects.toThrow(/has source 'LogsAndContainerScan'/);
    await expect(
      new BlobHost(
        [blobFunction("content", path, () => {}, { properties: { supportsDeferredBinding: "false" } })],
        connection(),
        quiet,
      ).start(),
    ).rejects.toThrow(/must use sdkBinding: true/);
    // One Azure would run, but that no Event Grid subscription delivers to: it would never run there.
    await expect(
      new BlobHost(
        [blobFunction(`unsubscribed-${randomUUID().slice(0, 8)}`, path, () => {})],
        connection(),
        quiet,
      ).start(),
    ).rejects.toThrow(/no Event Grid subscription delivers to it, so its blob trigger would never run/);
  });

  it("runs what the subscription passes and nothing else: Put Blob, Put Block List and Copy Blob run; metadata, properties, staged blocks, deletes do not", async () => {
    const containerName = `events-${randomUUID().slice(0, 8)}`;
    const container = BlobServiceClient.fromConnectionString(connection()).getContainerClient(containerName);
    await container.createIfNotExists();
    const fn = await subscribeContainer(connection(), containerName, "on-event");
    const seen: string[] = [];
    const host = new BlobHost(
      [blobFunction(fn, `${containerName}/{name}`, (blob) => void seen.push((blob as { blobName: string }).blobName))],
      connection(),
      quiet,
      { pollMs: 50 },
    );
    await host.start();
    try {
      const put = container.getBlockBlobClient("put.csv");
      await put.upload("a", 1); // Put Blob
      await until(() => seen.length === 1);
      // Changes Azure reports no BlobCreated for, though each gives the blob a new ETag.
      await put.setMetadata({ resumedAt: "2026-11-24T22:00:00.000Z" });
      await put.setHTTPHeaders({ blobContentType: "text/csv" });
      const blocks = container.getBlockBlobClient("blocks.csv");
      await blocks.stageBlock(Buffer.from("b0").toString("base64"), "b", 1); // staged, not committed
      await sleep(600);
      expect(seen).toEqual(["put.csv"]);
      await blocks.commitBlockList([Buffer.from("b0").toString("base64")]); // Put Block List
      await until(() => seen.length === 2);
      const copy = container.getBlockBlobClient("copy.csv");
      await (await copy.beginCopyFromURL(put.url)).pollUntilDone(); // Copy Blob
      await until(() => seen.length === 3);
      await put.delete(); // BlobDeleted: not a subscribed event type
      await blocks.setMetadata({ again: "yes" });
      await sleep(600);
      expect(seen).toEqual(["put.csv", "blocks.csv", "copy.csv"]);
      // The same blob written whole again is a new version: it runs again.
      await copy.upload("c2", 2);
      await until(() => seen.length === 4);
      expect(seen[3]).toBe("copy.csv");
    } finally {
      await host.stop();
    }
  });

  it("counts a delivery before its run: a blob whose run kills the process is tried maxAttempts times, then reported on the poison queue", async () => {
    const containerName = `crash-${randomUUID().slice(0, 8)}`;
    const dir = tempDir("ids-blob-crash-");
    const runs = join(dir.path, "runs");
    const container = BlobServiceClient.fromConnectionString(connection()).getContainerClient(containerName);
    await container.createIfNotExists();
    const fn = await subscribeContainer(connection(), containerName, "crashing");
    await container.getBlockBlobClient("fatal.csv").upload("x", 1);
    const poisoned = async (): Promise<boolean> => {
      const peeked = await QueueServiceClient.fromConnectionString(connection())
        .getQueueClient("webjobs-blobtrigger-poison")
        .peekMessages({ numberOfMessages: 32 });
      return peeked.peekedMessageItems.some((m) => {
        const body = JSON.parse(Buffer.from(m.messageText, "base64").toString("utf8")) as {
          ContainerName: string;
          BlobName: string;
        };
        return body.ContainerName === containerName && body.BlobName === "fatal.csv";
      });
    };
    const runCount = (): number => (existsSync(runs) ? readFileSync(runs, "utf8").trim().split("\n").length : 0);
    try {
      // A host process per attempt, as after each crash a new instance starts: three die in the run.
      for (let attempt = 1; attempt <= 3; attempt++) {
        const child = fork(
          join(__dirname, "..", "test", "fixtures", "crashing-blob-host.cjs"),
          [connection(), containerName, "3", runs, fn],
          { stdio: "ignore" },
        );
        const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
          child.once("exit", (_code, s) => resolve(s)),
        );
        expect(signal).toBe("SIGKILL");
        expect(runCount()).toBe(attempt);
      }
      // The fourth is the event's fourth delivery, three counted and none finished: poison, and the function is not run.
      const fourth = fork(
        join(__dirname, "..", "test", "fixtures", "crashing-blob-host.cjs"),
        [connection(), containerName, "3", runs, fn],
        { stdio: "ignore" },
      );
      try {
        await until(poisoned, 15_000);
        await sleep(300);
        expect(fourth.exitCode).toBeNull();
        expect(runCount()).toBe(3);
      } finally {
        fourth.kill("SIGKILL");
      }
      expect(JSON.parse(readFileSync(runs, "utf8").split("\n")[0] ?? "")).toEqual({
        connection: "AzureWebJobsStorage",
        containerName,
        blobName: "fatal.csv",
      });
    } finally {
      dir.remove();
    }
  }, 60_000);
});
