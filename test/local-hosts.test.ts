import { Logger } from "../shared/logging";
import { BlobServiceClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, inject, it } from "vitest";
import { BlobHost } from "../local/blob-host";
import { compileBlobPath } from "../local/blob-trigger";
import type { LoadedFunction } from "../local/functions-host";
import { readFileSync } from "node:fs";
import { decodeMessage, QueueHost, queueHostDefaults } from "../local/queue-host";
import { registerBlobTriggerReferences } from "../shared/adapters/blob/blob-trigger-reference";
import { join } from "node:path";
import { subscribeContainer } from "./blob-events";
import { root } from "./runtime";

/** The hosts' own log lines are not what these tests look at. */
const quiet = new Logger("error", () => undefined);

/** A function definition as the host loads it from functions/; the host, Azurite and the queues are real. */
const fn = (
  name: string,
  trigger: Record<string, unknown>,
  handler: (item: unknown, context: { triggerMetadata?: Record<string, unknown> }) => unknown,
): LoadedFunction => ({
  name,
  trigger: { direction: "in", ...trigger } as LoadedFunction["trigger"],
  handler: handler as LoadedFunction["handler"],
});

describe("local queue host (on Azurite)", () => {
  const connection = (): string => inject("storageConnectionString");
  const hosts: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.stop()));
  });

  it("decodes messages as the Functions host does", () => {
    expect(decodeMessage('{"a":1}')).toEqual({ a: 1 });
    expect(decodeMessage(Buffer.from('{"a":1}').toString("base64"))).toEqual({ a: 1 });
    expect(decodeMessage("plain text")).toBe("plain text");
  });

  it("delivers storage-queue and Service Bus triggered messages, and deletes them once handled", async () => {
    const queueName = `q-${randomUUID().slice(0, 8)}`;
    const busName = `sb-${randomUUID().slice(0, 8)}`;
    const seen: unknown[] = [];
    const host = new QueueHost(
      [
        fn("on-queue", { type: "queueTrigger", queueName }, (item) => void seen.push(item)),
        fn("on-bus", { type: "serviceBusTrigger", queueName: busName }, (item) => void seen.push(item)),
      ],
      connection(),
      quiet,
      { pollMs: 50 },
    );
    hosts.push(host);
    await host.start();
    const service = QueueServiceClient.fromConnectionString(connection());
    await service.getQueueClient(queueName).sendMessage(JSON.stringify({ n: 1 }));
    await service.getQueueClient(busName).sendMessage(Buffer.from(JSON.stringify({ n: 2 })).toString("base64"));
    await expect.poll(() => seen.length, { timeout: 10_000, interval: 50 }).toBe(2);
    expect(seen).toEqual(expect.arrayContaining([{ n: 1 }, { n: 2 }]));
    await expect
      .poll(async () => (await service.getQueueClient(queueName).getProperties()).approximateMessagesCount, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(0);
  });

  it("retries a failing message and moves it to <queue>-poison after the last attempt", async () => {
    const queueName = `p-${randomUUID().slice(0, 8)}`;
    let attempts = 0;
    const host = new QueueHost(
      [
        fn("fails", { type: "queueTrigger", queueName }, () => {
          attempts++;
          throw new Error("boom");
        }),
      ],
      connection(),
      quiet,
      { pollMs: 50, visibilityTimeout: 1, maxDequeueCount: 3 },
    );
    hosts.push(host);
    await host.start();
    const service = QueueServiceClient.fromConnectionString(connection());
    await service.getQueueClient(queueName).sendMessage("poison me");
    const poison = service.getQueueClient(`${queueName}-poison`);
    await expect
      .poll(async () => (await poison.peekMessages()).peekedMessageItems.length, { timeout: 15_000, interval: 50 })
      .toBe(1);
    expect(attempts).toBe(3);
    expect((await poison.peekMessages()).peekedMessageItems[0]?.messageText).toBe("poison me");
  }, 20_000);
});

describe("local queue host: concurrency and renewal", () => {
  const connection = (): string => inject("storageConnectionString");
  const hosts: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.stop()));
  });

  it("runs as many handlers at once as host.json allows Service Bus calls", () => {
    const hostJson = JSON.parse(readFileSync("host.json", "utf8")) as {
      extensions: { serviceBus: { maxConcurrentCalls: number; maxAutoLockRenewalDuration: string } };
    };
    expect(queueHostDefaults.maxConcurrentCalls).toBe(hostJson.extensions.serviceBus.maxConcurrentCalls);
    expect(hostJson.extensions.serviceBus.maxAutoLockRenewalDuration).toBe("00:05:00");
    expect(queueHostDefaults.maxRenewalSeconds).toBe(300);
  });

  it("handles a batch concurrently, never more than maxConcurrentCalls at once", async () => {
    const queueName = `c-${randomUUID().slice(0, 8)}`;
    const service = QueueServiceClient.fromConnectionString(connection());
    const queue = service.getQueueClient(queueName);
    await queue.createIfNotExists();
    await Promise.all(Array.from({ length: 40 }, (_, n) => queue.sendMessage(JSON.stringify({ n }))));
    let running = 0;
    let peak = 0;
    const seen = new Set<number>();
    const host = new QueueHost(
      [
        fn("slow", { type: "queueTrigger", queueName }, async (item) => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 300));
          seen.add((item as { n: number }).n);
          running--;
        }),
      ],
      connection(),
      quiet,
      { pollMs: 50, maxConcurrentCalls: 10 },
    );
    hosts.push(host);
    const started = Date.now();
    await host.start();
    await expect.poll(() => seen.size, { timeout: 10_000, interval: 50 }).toBe(40);
    // One at a time, 40 handlers of 300 ms would take 12 s.
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(peak).toBe(10);
    await expect
      .poll(async () => (await queue.getProperties()).approximateMessagesCount, { timeout: 10_000, interval: 50 })
      .toBe(0);
  });

  it("receives at once when told a message was sent, rather than at its next poll", async () => {
    const queueName = `n-${randomUUID().slice(0, 8)}`;
    const seen: unknown[] = [];
    // Polls once at start, then not for a minute: only notify() can make it receive in time.
    const host = new QueueHost(
      [fn("on-notify", { type: "serviceBusTrigger", queueName }, (item) => void seen.push(item))],
      connection(),
      quiet,
      { pollMs: 60_000 },
    );
    hosts.push(host);
    await host.start();
    await new Promise((r) => setTimeout(r, 500)); // its first poll found the queue empty
    await QueueServiceClient.fromConnectionString(connection())
      .getQueueClient(queueName)
      .sendMessage(JSON.stringify({ n: 1 }));
    host.notify(queueName);
    await expect.poll(() => seen.length, { timeout: 10_000, interval: 50 }).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
  });

  it("renews a message while its handler runs, so a second worker does not receive it", async () => {
    const queueName = `r-${randomUUID().slice(0, 8)}`;
    let calls = 0;
    let done = false;
    const slow = fn("long-valuation", { type: "queueTrigger", queueName }, async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 4_500));
      done = true;
    });
    // Renewed every second; a slow machine has a second of slack before the message would reappear.
    const options = { pollMs: 50, visibilityTimeout: 2 };
    const first = new QueueHost([slow], connection(), quiet, options);
    const second = new QueueHost([slow], connection(), quiet, options);
    hosts.push(first, second);
    await first.start();
    await second.start();
    const queue = QueueServiceClient.fromConnectionString(connection()).getQueueClient(queueName);
    await queue.sendMessage(JSON.stringify({ portfolioId: "p1" }));
    await expect.poll(() => done, { timeout: 10_000, interval: 50 }).toBe(true);
    await expect
      .poll(async () => (await queue.getProperties()).approximateMessagesCount, { timeout: 10_000, interval: 50 })
      .toBe(0);
    await new Promise((r) => setTimeout(r, 2_200)); // waits to show that the message does not run again
    // Without renewal the message would reappear after 2 s and run again on either host.
    expect(calls).toBe(1);
  }, 20_000);
});

describe("local blob host (on Azurite)", () => {
  const connection = (): string => inject("storageConnectionString");
  registerBlobTriggerReferences();
  /** As functions/feed-files-ingest.ts registers its trigger: Event Grid, a reference to the blob. */
  const blobTrigger = {
    type: "blobTrigger",
    connection: "AzureWebJobsStorage",
    source: "EventGrid",
    properties: { supportsDeferredBinding: "true" },
  };

  it("matches blob paths with named parts", () => {
    const path = compileBlobPath("inbound/{feed}/{name}.csv");
    expect(path.container).toBe("inbound");
    expect(path.match("custodian/positions-2024.csv")).toEqual({ feed: "custodian", name: "positions-2024" });
    expect(path.match("custodian/positions.xlsx")).toBeUndefined();
  });

  it("the file-drop trigger's subscription is the one postdeploy makes: the filter of infra/hooks/inbound-event-filter.json, delivering to feed-files-ingest", async () => {
    const blob = BlobServiceClient.fromConnectionString(connection())
      .getContainerClient("azure-webjobs-eventgrid-subscriptions")
      .getBlobClient("inbound-files.json");
    const stored = JSON.parse((await blob.downloadToBuffer()).toString("utf8")) as unknown;
    expect(stored).toEqual({
      name: "inbound-files",
      function: "feed-files-ingest",
      filter: JSON.parse(readFileSync(join(root, "infra", "hooks", "inbound-event-filter.json"), "utf8")),
    });
  });

  it("runs each new or changed blob once, also across a restart of the host", async () => {
    const containerName = `blobs-${randomUUID().slice(0, 8)}`;
    const container = BlobServiceClient.fromConnectionString(connection()).getContainerClient(containerName);
    await container.createIfNotExists();
    const seen: { content: string; name: unknown }[] = [];
    const definition = fn(
      await subscribeContainer(connection(), containerName, "on-blob"),
      { ...blobTrigger, path: `${containerName}/{name}.json` },
      async (blob, context) => {
        // The function is handed a reference: it reads the blob itself.
        const { blobName } = blob as { blobName: string };
        seen.push({
          content: (await container.getBlobClient(blobName).downloadToBuffer()).toString("utf8"),
          name: context.triggerMetadata?.name,
        });
      },
    );
    const first = new BlobHost([definition], connection(), quiet, { pollMs: 50 });
    await first.start();
    await container.getBlockBlobClient("a.json").upload('{"v":1}', 7);
    await container.getBlockBlobClient("ignored.txt").upload("x", 1);
    await expect.poll(() => seen.length, { timeout: 10_000, interval: 50 }).toBe(1);
    await new Promise((r) => setTimeout(r, 300)); // waits to show that ignored.txt does not run
    expect(seen).toEqual([{ content: '{"v":1}', name: "a" }]);
    await container.getBlockBlobClient("a.json").upload('{"v":2}', 7);
    await expect.poll(() => seen.length, { timeout: 10_000, interval: 50 }).toBe(2);
    expect(seen[1]).toEqual({ content: '{"v":2}', name: "a" });
    await first.stop();

    const second = new BlobHost([definition], connection(), quiet, { pollMs: 50 });
    await second.start();
    await new Promise((r) => setTimeout(r, 400)); // waits to show that the restarted host runs nothing again
    await second.stop();
    expect(seen).toHaveLength(2);
  });

  it("gives up on a blob after the last attempt and reports it on the poison queue", async () => {
    const containerName = `bad-${randomUUID().slice(0, 8)}`;
    await BlobServiceClient.fromConnectionString(connection()).getContainerClient(containerName).createIfNotExists();
    const name = await subscribeContainer(connection(), containerName, "bad-blob");
    let attempts = 0;
    const host = new BlobHost(
      [
        fn(name, { ...blobTrigger, path: `${containerName}/{name}` }, () => {
          attempts++;
          throw new Error("unreadable");
        }),
      ],
      connection(),
      quiet,
      { pollMs: 50, maxAttempts: 2 },
    );
    await host.start();
    await BlobServiceClient.fromConnectionString(connection())
      .getContainerClient(containerName)
      .getBlockBlobClient("broken.csv")
      .upload("x", 1);
    await expect.poll(() => attempts, { timeout: 10_000, interval: 50 }).toBe(2);
    await new Promise((r) => setTimeout(r, 300)); // waits to show that there is no third attempt
    await host.stop();
    expect(attempts).toBe(2);
    const poison = await QueueServiceClient.fromConnectionString(connection())
      .getQueueClient("webjobs-blobtrigger-poison")
      .peekMessages({ numberOfMessages: 32 });
    const reported = poison.peekedMessageItems.map(
      (m) =>
        JSON.parse(Buffer.from(m.messageText, "base64").toString("utf8")) as {
          BlobName: string;
          ContainerName: string;
        },
    );
    expect(reported).toContainEqual(expect.objectContaining({ BlobName: "broken.csv", ContainerName: containerName }));
  });
});
