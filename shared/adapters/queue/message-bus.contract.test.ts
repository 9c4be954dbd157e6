import type { InvocationContext } from "@azure/functions";
import { Logger } from "../../logging";
import { ServiceBusClient } from "@azure/service-bus";
import { QueueServiceClient } from "@azure/storage-queue";
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { waitForPort } from "../../../local/children";
import type { LoadedFunction } from "../../../local/functions-host";
import { freePort } from "../../../local/launch";
import { decodeMessage, QueueHost } from "../../../local/queue-host";
import { withTraceparent } from "../../observability/trace-context";
import type { MessageBus, QueueName } from "../../ports/message-bus";
import { ServiceBusMessageBus } from "./service-bus-bus";
import { StorageQueueMessageBus } from "./storage-queue-bus";

/** The hosts' own log lines are not what these tests look at. */
const quiet = new Logger("error", () => undefined);

/** What each adapter's test needs beside the bus: a receiver that reads like the queue trigger does. */
interface Harness {
  bus: MessageBus;
  /** Takes (and removes) what is visible now, waiting up to `waitMs` for at least `atLeast` messages. */
  receive: (queue: QueueName, atLeast: number, waitMs: number) => Promise<unknown[]>;
  /** Lets a handler fail on every delivery; resolves with the message body once the broker gave it up. */
  failUntilGivenUp: (queue: QueueName, timeoutMs: number) => Promise<unknown>;
  /** Like `receive`, with the trace context each message gives the function it triggers. */
  receiveTraced: (
    queue: QueueName,
    atLeast: number,
    waitMs: number,
  ) => Promise<{ body: unknown; traceparent?: string }[]>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The same cases for every adapter of the MessageBus port. */
function messageBusContract(harness: () => Harness): void {
  it("JSON bodies arrive as they were sent", async () => {
    const { bus, receive } = harness();
    await receive("events", 0, 0);
    const bodies = [
      {
        id: "evt_1",
        event: "portfolio.valued",
        timestamp: "2026-03-02T10:00:00.000Z",
        data: {
          totalValue: 133.33,
          currency: "EUR",
          note: "Zürich – 東京",
          nothing: null,
          list: [1, "two", { three: 3 }],
        },
      },
      { empty: {}, flag: false, zero: 0 },
    ];
    await bus.send(
      "events",
      bodies.map((body) => ({ body })),
    );
    const received = await receive("events", 2, 15_000);
    expect(received).toHaveLength(2);
    expect(received).toEqual(expect.arrayContaining(bodies));
  });

  it("a batch of a few hundred messages arrives complete", async () => {
    const { bus, receive } = harness();
    await receive("deliveries", 0, 0);
    const count = 300;
    await bus.send(
      "deliveries",
      Array.from({ length: count }, (_, n) => ({ body: { n, padding: "x".repeat(200) } })),
    );
    const received = (await receive("deliveries", count, 60_000)) as { n: number }[];
    expect(received.map((b) => b.n).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, n) => n));
  }, 90_000);

  it("a delayed message is not delivered before its delay, and is after it", async () => {
    const { bus, receive } = harness();
    await receive("valuations", 0, 0);
    const sent = Date.now();
    await bus.send("valuations", [
      { body: { portfolioId: "pf_delayed" }, delaySeconds: 4 },
      { body: { portfolioId: "pf_now" } },
    ]);
    expect(await receive("valuations", 1, 10_000)).toEqual([{ portfolioId: "pf_now" }]);
    await sleep(Math.max(0, sent + 2_500 - Date.now())); // waits to show that the delayed message is not visible before its time
    expect(await receive("valuations", 0, 0)).toEqual([]);
    const later = await receive("valuations", 1, 15_000);
    expect(later).toEqual([{ portfolioId: "pf_delayed" }]);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(3_500);
  }, 30_000);

  it("a message carries a trace context to its function: the sender's current one, or the one it names", async () => {
    const h = harness();
    await h.receive("valuations", 0, 0);
    const sender = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const named = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    await withTraceparent(sender, () =>
      h.bus.send("valuations", [{ body: { n: 1 } }, { body: { n: 2 }, traceparent: named }]),
    );
    await h.bus.send("valuations", [{ body: { n: 3 } }]);
    const received = (await h.receiveTraced("valuations", 3, 15_000)) as {
      body: { n: number };
      traceparent?: string;
    }[];
    const byN = new Map(received.map((r) => [r.body.n, r]));
    expect(received.map((r) => r.body).sort((a, b) => a.n - b.n)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(byN.get(1)?.traceparent).toBe(sender);
    expect(byN.get(2)?.traceparent).toBe(named);
    // Sent outside any trace: the function runs in a trace of its own, if any.
    expect([sender, named]).not.toContain(byN.get(3)?.traceparent);
  });

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
    azurite = fork(
      require.resolve("azurite/dist/src/queue/main.js"),
      [
        "--queueHost",
        "127.0.0.1",
        "--queuePort",
        String(port),
        "--location",
        dir,
        "--silent",
        "--skipApiVersionCheck",
        "--loose",
      ],
      { stdio: "ignore" },
    );
    await waitForPort(port, "127.0.0.1", 15_000);
    connection = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
    service = QueueServiceClient.fromConnectionString(connection);
    for (const queue of ["events", "valuations", "deliveries", "events-poison"])
      await service.getQueueClient(queue).createIfNotExists();

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
        const taken = await takeVisible(queue);
        if (taken.length >= atLeast) return taken;
        // What arrived by the deadline, enough or not: the callers assert on it.
        await vi
          .waitFor(
            async () => {
              taken.push(...(await takeVisible(queue)));
              expect(taken.length).toBeGreaterThanOrEqual(atLeast);
            },
            { timeout: waitMs, interval: 100 },
          )
          .catch(() => undefined);
        return taken;
      },
      // The local runtime's queue host, which unwraps the trace context and hands it to the function as the Functions host does.
      async receiveTraced(queue, atLeast, waitMs) {
        const received: { body: unknown; traceparent?: string }[] = [];
        const recording: LoadedFunction = {
          name: "records",
          trigger: { type: "serviceBusTrigger", direction: "in", queueName: queue },
          handler: (body, context) =>
            void received.push({ body, traceparent: (context as InvocationContext).traceContext?.traceParent }),
        };
        const host = new QueueHost([recording], connection, quiet, { pollMs: 50 });
        await host.start();
        try {
          await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(atLeast), {
            timeout: waitMs,
            interval: 50,
          });
          return received;
        } finally {
          await host.stop();
        }
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
          const given = await vi.waitFor(
            async () => {
              const [first] = (await poison.peekMessages()).peekedMessageItems;
              assert.isDefined(first, `not in ${queue}-poison after ${attempts} attempts`);
              return first;
            },
            { timeout: timeoutMs, interval: 200 },
          );
          expect(attempts).toBe(5);
          return decodeMessage(given.messageText);
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
  console.warn(
    "MessageBus contract: Service Bus run skipped, SERVICEBUS_CONNECTION_STRING is not set (a namespace with the events, valuations and deliveries queues)",
  );
}

describe.skipIf(serviceBusConnection === undefined || serviceBusConnection === "")(
  "MessageBus contract: Service Bus (SERVICEBUS_CONNECTION_STRING)",
  () => {
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
        // The Functions Service Bus trigger continues the trace a message's Diagnostic-Id names.
        async receiveTraced(queue, atLeast, waitMs) {
          const receiver = client.createReceiver(queue, { receiveMode: "receiveAndDelete" });
          try {
            const deadline = Date.now() + waitMs;
            const taken: { body: unknown; traceparent?: string }[] = [];
            while (taken.length < atLeast && Date.now() < deadline) {
              for (const m of await receiver.receiveMessages(100, { maxWaitTimeInMs: 1_000 })) {
                const diagnosticId = m.applicationProperties?.["Diagnostic-Id"];
                taken.push({
                  body: m.body as unknown,
                  ...(typeof diagnosticId === "string" ? { traceparent: diagnosticId } : {}),
                });
              }
            }
            return taken;
          } finally {
            await receiver.close();
          }
        },
        // Abandoning is what a failing Functions trigger does; the queue's maxDeliveryCount dead-letters it.
        async failUntilGivenUp(queue, timeoutMs) {
          const receiver = client.createReceiver(queue, { receiveMode: "peekLock" });
          const deadLetters = client.createReceiver(queue, {
            subQueueType: "deadLetter",
            receiveMode: "receiveAndDelete",
          });
          try {
            const deadline = Date.now() + timeoutMs;
            while (Date.now() < deadline) {
              const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 200 });
              if (dead !== undefined) return dead.body as unknown;
              for (const message of await receiver.receiveMessages(10, { maxWaitTimeInMs: 1_000 }))
                await receiver.abandonMessage(message);
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
  },
);
