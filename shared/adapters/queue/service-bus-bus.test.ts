import type { ServiceBusClient, ServiceBusMessage } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import { withTraceparent } from "../../observability/trace-context";
import { ServiceBusMessageBus, serviceBusHost } from "./service-bus-bus";

/**
 * The SDK's client with batches of a fixed capacity, recording what is sent: the adapter's batching,
 * scheduling and sender reuse without a namespace (the contract test runs it against a real one).
 */
function fakeClient(capacity: number) {
  const sent: { queue: string; messages: ServiceBusMessage[] }[] = [];
  const scheduled: { queue: string; messages: ServiceBusMessage[]; at: Date }[] = [];
  const senders: string[] = [];
  const client = {
    createSender(queue: string) {
      senders.push(queue);
      return {
        async createMessageBatch() {
          const messages: ServiceBusMessage[] = [];
          return {
            messages,
            get count() {
              return messages.length;
            },
            tryAddMessage(message: ServiceBusMessage) {
              if (messages.length >= capacity || JSON.stringify(message.body).length > 1_000) return false;
              messages.push(message);
              return true;
            },
          };
        },
        async sendMessages(batch: { messages: ServiceBusMessage[] }) {
          sent.push({ queue, messages: [...batch.messages] });
        },
        async scheduleMessages(messages: ServiceBusMessage[], at: Date) {
          scheduled.push({ queue, messages: [...messages], at });
          return messages.map((_, i) => i);
        },
        async close() {},
      };
    },
    async close() {},
  };
  return { client: client as unknown as ServiceBusClient, sent, scheduled, senders };
}

describe("Service Bus message bus", () => {
  it("sends JSON messages in as few batches as fit, and schedules delayed ones apart", async () => {
    const { client, sent, scheduled } = fakeClient(2);
    const bus = new ServiceBusMessageBus(client);
    const before = Date.now();
    await bus.send("events", [
      { body: { n: 1 } },
      { body: { n: 2 } },
      { body: { n: 3 }, delaySeconds: 30 },
      { body: { n: 4 } },
      { body: { n: 5 } },
      { body: { n: 6 }, delaySeconds: 30 },
    ]);
    expect(sent.map((b) => b.messages.map((m) => (m.body as { n: number }).n))).toEqual([
      [1, 2],
      [4, 5],
    ]);
    expect(scheduled.map((s) => s.messages.map((m) => (m.body as { n: number }).n))).toEqual([[3, 6]]);
    expect(scheduled[0]?.at.getTime()).toBeGreaterThanOrEqual(before + 30_000);
    expect(scheduled[0]?.at.getTime()).toBeLessThanOrEqual(Date.now() + 30_000);
    const all = [...sent, ...scheduled].flatMap((b) => b.messages);
    expect(all.every((m) => m.contentType === "application/json")).toBe(true);
  });

  it("stamps each message with its trace context as the Diagnostic-Id the Functions trigger continues: the sender's, or the one it names", async () => {
    const { client, sent, scheduled } = fakeClient(10);
    const bus = new ServiceBusMessageBus(client);
    const sender = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const named = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    await withTraceparent(sender, () =>
      bus.send("events", [{ body: 1 }, { body: 2, traceparent: named }, { body: 3, delaySeconds: 5 }]),
    );
    await bus.send("events", [{ body: 4 }]);
    const properties = [...sent, ...scheduled].flatMap((b) => b.messages).map((m) => [m.body, m.applicationProperties]);
    expect(properties).toEqual([
      [1, { "Diagnostic-Id": sender, traceparent: sender }],
      [2, { "Diagnostic-Id": named, traceparent: named }],
      [4, undefined],
      [3, { "Diagnostic-Id": sender, traceparent: sender }],
    ]);
  });

  it("keeps one sender per queue", async () => {
    const { client, senders } = fakeClient(100);
    const bus = new ServiceBusMessageBus(client);
    await bus.send("events", [{ body: 1 }]);
    await bus.send("events", [{ body: 2 }]);
    await bus.send("deliveries", [{ body: 3 }]);
    await bus.send("valuations", []);
    expect(senders).toEqual(["events", "deliveries"]);
  });

  it("refuses a message no batch can hold instead of dropping it", async () => {
    const { client, sent } = fakeClient(10);
    const bus = new ServiceBusMessageBus(client);
    await expect(bus.send("events", [{ body: { n: 1 } }, { body: "x".repeat(2_000) }])).rejects.toThrow(
      "larger than a Service Bus batch allows",
    );
    expect(sent.flatMap((b) => b.messages)).toHaveLength(1);
  });

  it("accepts a namespace name or its host name", () => {
    expect(serviceBusHost("ids-sb")).toBe("ids-sb.servicebus.windows.net");
    expect(serviceBusHost("ids-sb.servicebus.usgovcloudapi.net")).toBe("ids-sb.servicebus.usgovcloudapi.net");
  });
});
