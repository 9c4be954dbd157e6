import { Logger } from "../../logging";
import { ServiceBusClient } from "@azure/service-bus";
import { QueueServiceClient } from "@azure/storage-queue";
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForPort } from "../../../local/children";
import type { LoadedFunction } from "../../../local/functions-host";
import { freePort } from "../../../local/launch";
import { decodeMessage, QueueHost } from "../../../local/queue-host";
import type { MessageBus, QueueName } from "../../ports/message-bus";
import { ServiceBusMessageBus } from "./service-bus-bus";
import { StorageQueueMessageBus } from "./storage-queue-bus";

/** The hosts' own log lines are not what these tests look at. */
const quiet = new Logger("error", () => undefined);

/** What each adapter's test needs beside the bus: a receiver that reads like the queue trigger does. */
interface Harness {
  bus: MessageBus;
  /** Takes (and removes) what is visible now, waiting up to `waitMs` for at least `atLeast` messages. */
  receive(queue: QueueName, atLeast: number, waitMs: number): Promise<unknown[]>;
  /** Lets a handler fail on every delivery; resolves with the message body once the broker gave it up. */
  failUntilGivenUp(queue: QueueName, timeoutMs: number): Promise<unknown>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The same cases for every adapter of the MessageBus port. */
function messageBusContract(harness: () => Harness): void {
  it("JSON bodies arrive as they were sent", async () => {
    const { bus, receive } = harness();
    await receive("events", 0, 0);
    const bodies = [
      { id: "evt_1", event: "portfolio.valued", timestamp: "2026-03-02T10:00:00.000Z", data: { totalValue: 133.33, currency: "EUR", note: "Zürich – 東京", nothing: null, list: [1, "two", { three: 3 }] } },
      { empty: {}, flag: false, zero: 0 },
    ];
    await bus.send("events", bodies.map((body) => ({ body })));
    const received = await receive("events", 2, 15_000);
    expect(received).toHaveLength(2);
    expect(received).toEqual(expect.arrayContaining(bodies));
  });

  it("a batch of a few hundred messages arrives complete", async () => {
    const { bus, receive } = harness();
    await receive("deliveries", 0, 0);
    const count = 300;
    await bus.send("deliveries", Array.from({ length: count }, (_, n) => ({ body: { n, padding: "x".repeat(200) } })));
    const received = (await receive("deliveries", count, 60_000)) as { n: number }[];
    expect(received.map((b) => b.n).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, n) => n));
  }, 90_000);

  it("a delayed message is not delivered before its delay, and is after it", async () => {
    const { bus, receive } = harness();
    await receive("valuations", 0, 0);
    const sent = Date.now();
    await bus.send("valuations", [{ body: { portfolioId: "pf_delayed" }, delaySeconds: 4 }, { body: { portfolioId: "pf_now" } }]);
    expect(await receive("valuations", 1, 10_000)).toEqual([{ portfolioId: "pf_now" }]);
    await sleep(Math.max(0, sent + 2_500 - Date.now()));
    expect(await receive("valuations", 0, 0)).toEqual([]);
    const later = await receive("valuations", 1, 15_000);
    expect(later).toEqual([{ portfolioId: "pf_delayed" }]);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(3_500);
  }, 30_000);

  it("a message whose handler keeps failing ends where the broker puts given-up messages", async () => {
    const { bus, receive, failUntilGivenUp } = harness();
    await receive("events", 0, 0);
    await bus.send("events", [{ body: { id: "evt_poison", attempt: "always fails" } }]);
    expect(await failUntilGivenUp("events", 45_000)).toEqual({ id: "evt_poison", attempt: "always fails" });
  }, 60_000);
}

describe("MessageBus contract: storage queues (on an Azurite of its own)", () => {
  let azurite: ChildProcess | undefined;
  let dir: string | undefined;
  let service: QueueServiceClient;
  let harness: Harness;
  let connection = "";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ids-bus-contract-"));
    const port = await freePort();
    azurite = fork(require.resolve("azurite/dist/src/queue/main.js"), ["--queueHost", "127.0.0.1", "--queuePort", String(port), "--location", dir, "--silent", "--skipApiVersionCheck", "--loose"], { stdio: "ignore" });
    await waitForPort(port, "127.0.0.1", 15_000);
    connection = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
    service = QueueServiceClient.fromConnectionString(connection);
    for (const queue of ["events", "valuations", "deliveries", "events-poison"]) await service.getQueueClient(queue).createIfNotExists();

    const takeVisible = async (queue: QueueName): Promise<unknown[]> => {
      const client = service.getQueueClient(queue);
      const taken: unknown[] = [];
      for (;;) {
        const { receivedMessageItems } = await client.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 60 });
        if (receivedMessageItems.length === 0) return taken;
        for (const m of receivedMessageItems) {
          taken.push(decodeMessage(m.messageText));
          await client.deleteMessage(m.messageId, m.popReceipt);
        }
      }
    };
    harness = {
      bus: StorageQueueMessageBus.fromConnectionString(connection),
      async receive(queue, atLeast, waitMs) {
        const deadline = Date.now() + waitMs;
        const taken = await takeVisible(queue);
        while (taken.length < atLeast && Date.now() < deadline) {
          await sleep(100);
          taken.push(...(await takeVisible(queue)));
        }
        return taken;
      },
      // The local runtime's queue host with its Azure defaults (5 deliveries), a 1 s retry delay to be quick.
      async failUntilGivenUp(queue, timeoutMs) {
        let attempts = 0;
        const failing: LoadedFunction = {
          name: "always-fails",
          trigger: { type: "serviceBusTrigger", direction: "in", queueName: queue },
          handler: () => {
            attempts++;
            throw new Error("handler failure");
          },
        };
        const host = new QueueHost([failing], connection, quiet, { pollMs: 50, visibilityTimeout: 1 });
        await host.start();
        try {
          const poison = service.getQueueClient(`${queue}-poison`);
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const { peekedMessageItems } = await poison.peekMessages();
            if (peekedMessageItems[0] !== undefined) {
              expect(attempts).toBe(5);
              return decodeMessage(peekedMessageItems[0].messageText);
            }
            if (Date.now() > deadline) throw new Error(`not in ${queue}-poison after ${attempts} attempts`);
            await sleep(200);
          }
        } finally {
          await host.stop();
        }
      },
    };
  }, 30_000);

  afterAll(async () => {
    if (azurite !== undefined && azurite.exitCode === null) {
      const exited = new Promise((r) => azurite?.once("exit", r));
      azurite.kill("SIGKILL"); // its data is thrown away; a clean shutdown waits on idle keep-alive connections
      await exited;
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  messageBusContract(() => harness);

  it("tells its listeners which queue got messages visible at once (the local queue host then receives without waiting to poll)", async () => {
    const bus = StorageQueueMessageBus.fromConnectionString(connection);
    const told: QueueName[] = [];
    bus.onSent((queue) => told.push(queue));
    await bus.send("valuations", [{ body: { later: true }, delaySeconds: 30 }]);
    expect(told).toEqual([]);
    await bus.send("events", [{ body: { now: true } }, { body: { later: true }, delaySeconds: 30 }]);
    expect(told).toEqual(["events"]);
    await harness.receive("events", 1, 5_000);
  });
});

const serviceBusConnection = process.env.SERVICEBUS_CONNECTION_STRING;
if (serviceBusConnection === undefined || serviceBusConnection === "") {
  console.warn("MessageBus contract: Service Bus run skipped, SERVICEBUS_CONNECTION_STRING is not set (a namespace with the events, valuations and deliveries queues)");
}

describe.skipIf(serviceBusConnection === undefined || serviceBusConnection === "")("MessageBus contract: Service Bus (SERVICEBUS_CONNECTION_STRING)", () => {
  let client: ServiceBusClient;
  let bus: ServiceBusMessageBus;
  let harness: Harness;

  beforeAll(() => {
    client = new ServiceBusClient(serviceBusConnection ?? "");
    bus = ServiceBusMessageBus.fromConnectionString(serviceBusConnection ?? "");
    harness = {
      bus,
      async receive(queue, atLeast, waitMs) {
        const receiver = client.createReceiver(queue, { receiveMode: "receiveAndDelete" });
        try {
          const deadline = Date.now() + waitMs;
          const taken: unknown[] = [];
          for (;;) {
            const batch = await receiver.receiveMessages(100, { maxWaitTimeInMs: 1_000 });
            taken.push(...batch.map((m) => m.body as unknown));
            if (batch.length === 0 && (taken.length >= atLeast || Date.now() > deadline)) return taken;
          }
        } finally {
          await receiver.close();
        }
      },
      // Abandoning is what a failing Functions trigger does; the queue's maxDeliveryCount dead-letters it.
      async failUntilGivenUp(queue, timeoutMs) {
        const receiver = client.createReceiver(queue, { receiveMode: "peekLock" });
        const deadLetters = client.createReceiver(queue, { subQueueType: "deadLetter", receiveMode: "receiveAndDelete" });
        try {
          const deadline = Date.now() + timeoutMs;
          while (Date.now() < deadline) {
            const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 200 });
            if (dead !== undefined) return dead.body as unknown;
            for (const message of await receiver.receiveMessages(10, { maxWaitTimeInMs: 1_000 })) await receiver.abandonMessage(message);
          }
          throw new Error(`not dead-lettered on ${queue} in time`);
        } finally {
          await receiver.close();
          await deadLetters.close();
        }
      },
    };
  });

  afterAll(async () => {
    await bus?.close();
    await client?.close();
  });

  messageBusContract(() => harness);
});
