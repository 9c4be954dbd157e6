import { randomUUID } from "node:crypto";
import { BlobServiceClient } from "@azure/storage-blob";
import { describe, expect, inject, it } from "vitest";
import { BlobHost } from "./blob-host";
import type { LoadedFunction } from "./functions-host";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("local blob host: notify (on Azurite)", () => {
  it("a notified container is scanned at once, not at the next poll; stop() does not wait for the poll", async () => {
    const containerName = `notify-${randomUUID().slice(0, 8)}`;
    const seen: string[] = [];
    const definition: LoadedFunction = {
      name: "on-blob",
      trigger: { direction: "in", type: "blobTrigger", path: `${containerName}/{name}` } as LoadedFunction["trigger"],
      handler: ((content: Buffer) => void seen.push(content.toString("utf8"))) as LoadedFunction["handler"],
    };
    // A poll far beyond this test: only notify() can bring the blob in.
    const container = BlobServiceClient.fromConnectionString(inject("storageConnectionString")).getContainerClient(containerName);
    await container.createIfNotExists();
    // The first scan takes the blob there at start; once it ran, that scan's listing is behind us.
    await container.getBlockBlobClient("first.csv").upload("first", 5);
    const host = new BlobHost([definition], inject("storageConnectionString"), () => {}, { pollMs: 600_000 });
    await host.start();
    try {
      for (const started = Date.now(); seen.length === 0 && Date.now() - started < 10_000; ) await sleep(20);
      expect(seen).toEqual(["first"]);
      await container.getBlockBlobClient("a.csv").upload("a", 1);
      await sleep(500);
      expect(seen).toEqual(["first"]);
      host.notify("some-other-container");
      await sleep(300);
      expect(seen).toEqual(["first"]);
      const notified = Date.now();
      host.notify(containerName);
      while (seen.length === 1 && Date.now() - notified < 5_000) await sleep(20);
      expect(seen).toEqual(["first", "a"]);
    } finally {
      const stopping = Date.now();
      await host.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000);
    }
  });
});
