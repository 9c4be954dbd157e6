import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosOutbox } from "../../adapters/cosmos/cosmos-outbox";
import type { EventEnvelope } from "../../domain/events";
import { Logger } from "../../logging";
import { withTraceparent } from "../../observability/trace-context";
import type { Clock } from "../../ports/clock";
import type { MessageBus, OutgoingMessage, QueueName } from "../../ports/message-bus";
import { eventMessages } from "./event-messages";
import { EventPublisher } from "./event-publisher";
import { RelayOutbox } from "./relay-outbox";
import { SweepFanOut } from "./sweep-fan-out";

/** A bus that records what it accepted, or refuses everything while `down`. */
class RecordingBus implements MessageBus {
  readonly sent: { queue: QueueName; message: OutgoingMessage }[] = [];
  down = false;
  async send(queue: QueueName, messages: readonly OutgoingMessage[]): Promise<void> {
    if (this.down) throw new Error("bus unavailable");
    this.sent.push(...messages.map((message) => ({ queue, message })));
  }
  /** The envelopes sent, in order: each message carries an array of them. */
  envelopes(): EventEnvelope[] {
    return this.sent.flatMap((s) => s.message.body as EventEnvelope[]);
  }
  ids(): string[] {
    return this.envelopes().map((e) => e.id);
  }
}

let serial = 0;
const event = (n = serial++): EventEnvelope => ({
  id: `evt_pub_${process.pid}_${n}`,
  event: "refresh_job.completed",
  timestamp: "2026-03-02T10:00:00.000Z",
  data: { jobId: `job_${n}` },
});

describe("event publisher and outbox relay (on the Cosmos stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let now = Date.parse("2026-03-02T10:00:00Z");
  const clock: Clock = { now: () => new Date(now) };
  const warnings: string[] = [];
  const log = new Logger("info", (_level, line) => void warnings.push(line));
  let outbox: CosmosOutbox;
  beforeAll(async () => {
    cosmos = await startCosmos();
    outbox = new CosmosOutbox(cosmos.db.container("events"), clock);
  });
  afterAll(async () => cosmos.stop());

  /** The relay sees only what this test appended: earlier tests' entries are published before it starts. */
  const drain = async (bus: RecordingBus): Promise<void> => {
    now += 3_600_000;
    await new RelayOutbox({ outbox, bus, clock, graceSeconds: 0, batchSize: 500, maxBatches: 100 }).execute();
  };

  it("stores the events and sends each envelope to the events queue; they stay pending until their fan-out marks them", async () => {
    const bus = new RecordingBus();
    const events = [event(), event()];
    await new EventPublisher(outbox, () => bus, log).append(events);
    expect(bus.sent).toEqual([{ queue: "events", message: { body: events } }]);
    const stored = await outbox.list({});
    expect(stored).toEqual(expect.arrayContaining(events));
    now += 60_000;
    const pending = (await outbox.unpublished(clock.now().toISOString(), 1_000)).map((e) => e.id);
    for (const e of events) expect(pending).toContain(e.id); // no fan-out yet: the relay's, after its grace
    await outbox.markFannedOut(events.map((e) => e.id));
    const after = (await outbox.unpublished(clock.now().toISOString(), 1_000)).map((e) => e.id);
    for (const e of events) expect(after).not.toContain(e.id);
  });

  it("a refused publish is logged, not thrown; the relay sends the entries after the grace period, once", async () => {
    await drain(new RecordingBus());
    const bus = new RecordingBus();
    bus.down = true;
    const events = [event(), event(), event()];
    await expect(new EventPublisher(outbox, () => bus, log).append(events)).resolves.toBeUndefined();
    expect(warnings.at(-1)).toContain("not sent");
    expect(warnings.at(-1)).toContain(events[0]?.id);

    bus.down = false;
    const relay = new RelayOutbox({ outbox, bus, clock, graceSeconds: 10, batchSize: 100, maxBatches: 5 });
    now += 5_000;
    expect(await relay.execute()).toEqual([]); // still within the grace period
    now += 6_000;
    expect((await relay.execute()).sort()).toEqual(events.map((e) => e.id).sort());
    expect(bus.envelopes()).toEqual(expect.arrayContaining(events));
    now += 60_000;
    expect(await relay.execute()).toEqual([]); // published entries are not sent again
    expect(bus.envelopes()).toHaveLength(3);
  });

  it("stores each event with the trace context it was appended in, and the relay sends each in that one, not its own", async () => {
    await drain(new RecordingBus());
    const down = new RecordingBus();
    down.down = true;
    const [a1, a2, b1, untraced] = [event(), event(), event(), event()] as [
      EventEnvelope,
      EventEnvelope,
      EventEnvelope,
      EventEnvelope,
    ];
    const A = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const B = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    await withTraceparent(A, () => new EventPublisher(outbox, () => down, log).append([a1, a2]));
    await withTraceparent(B, () => new EventPublisher(outbox, () => down, log).append([b1]));
    await new EventPublisher(outbox, () => down, log).append([untraced]);
    now += 60_000;
    const bus = new RecordingBus();
    const relayRun = "00-11111111111111111111111111111111-2222222222222222-01";
    await withTraceparent(relayRun, () =>
      new RelayOutbox({ outbox, bus, clock, graceSeconds: 10, batchSize: 100, maxBatches: 5 }).execute(),
    );
    const traceOf = (id: string): string | undefined =>
      bus.sent.find((s) => (s.message.body as EventEnvelope[]).some((e) => e.id === id))?.message.traceparent;
    // An entry from before trace contexts were stored names none: the bus sends it in the relay run's.
    expect([a1, a2, b1, untraced].map((e) => traceOf(e.id))).toEqual([A, A, B, undefined]);
    expect(bus.sent.filter((s) => s.message.traceparent === A)).toHaveLength(1);
    // The messages carry the envelopes only.
    expect(bus.envelopes()).toEqual(expect.arrayContaining([a1, a2, b1, untraced]));
    expect(bus.envelopes()).toHaveLength(4);
  });

  it("a bus that cannot even be built fails the publish, not the data write", async () => {
    await drain(new RecordingBus());
    const e = event();
    await new EventPublisher(
      outbox,
      () => {
        throw new Error("MESSAGE_BUS=service-bus needs a namespace");
      },
      log,
    ).append([e]);
    expect(await outbox.list({})).toContainEqual(e);
    now += 60_000;
    expect((await outbox.unpublished(clock.now().toISOString(), 100)).map((x) => x.id)).toEqual([e.id]);
  });

  it("publishes a large set in chunks, so a send failing half-way leaves only the rest pending", async () => {
    await drain(new RecordingBus());
    const events = Array.from({ length: 1_200 }, () => event());
    const bus = new RecordingBus();
    let sends = 0;
    const flaky: MessageBus = {
      send: async (queue, messages) => {
        if (++sends === 2) throw new Error("bus unavailable");
        await bus.send(queue, messages);
      },
    };
    await new EventPublisher(outbox, () => flaky, log).append(events);
    expect(bus.ids()).toEqual(events.slice(0, 500).map((e) => e.id));
    expect(warnings.at(-1)).toContain('"unpublished":700');
    await outbox.markFannedOut(bus.ids()); // the fan-out of what was sent
    now += 60_000;
    const pending = await outbox.unpublished(clock.now().toISOString(), 2_000);
    expect(pending.map((e) => e.id).sort()).toEqual(
      events
        .slice(500)
        .map((e) => e.id)
        .sort(),
    );
  });

  it("an event the fan-out never records is sent again: by the relay after its grace, then by the sweep each of its own", async () => {
    await drain(new RecordingBus());
    const sweep = (bus: RecordingBus) =>
      new SweepFanOut({ outbox, bus, clock, graceSeconds: 30, batchSize: 500, maxBatches: 100 }).execute();
    // Earlier tests' entries were relayed but never fanned out: this test's fan-out records them first.
    now += 3_600_000;
    await outbox.markFannedOut(await sweep(new RecordingBus()));

    const bus = new RecordingBus();
    const relay = new RelayOutbox({ outbox, bus, clock, graceSeconds: 10, batchSize: 100, maxBatches: 5 });
    const [fannedOut, lost] = [event(), event()];
    await new EventPublisher(outbox, () => bus, log).append([fannedOut, lost]); // sent, both
    await outbox.markFannedOut([fannedOut.id]); // the fan-out of one completed; the other's message was lost
    now += 5_000;
    expect(await relay.execute()).toEqual([]); // within the grace period: its fan-out may be on its way
    now += 6_000;
    expect(await relay.execute()).toEqual([lost.id]);
    expect(await relay.execute()).toEqual([]); // relayed: the sweep's from now on
    now += 20_000;
    expect(await sweep(bus)).toEqual([]); // sent again just now: its grace period first
    now += 11_000;
    expect(await sweep(bus)).toEqual([lost.id]);
    expect(await sweep(bus)).toEqual([]);
    now += 31_000;
    expect(await sweep(bus)).toEqual([lost.id]);
    await outbox.markFannedOut([lost.id]);
    await outbox.markPublished([lost.id]); // a late relay's mark does not undo the fan-out's
    now += 60_000;
    expect(await sweep(bus)).toEqual([]);
    expect(await relay.execute()).toEqual([]);
    expect(bus.ids()).toEqual([fannedOut.id, lost.id, lost.id, lost.id, lost.id]);
  });

  it("relays in bounded batches, oldest first, and keeps entries pending while the bus refuses", async () => {
    await drain(new RecordingBus());
    const events = Array.from({ length: 25 }, () => event());
    const down = new RecordingBus();
    down.down = true;
    for (const e of events) {
      now += 1_000;
      await new EventPublisher(outbox, () => down, log).append([e]);
    }
    now += 60_000;
    const bus = new RecordingBus();
    bus.down = true;
    const relay = new RelayOutbox({ outbox, bus, clock, graceSeconds: 10, batchSize: 10, maxBatches: 2 });
    await expect(relay.execute()).rejects.toThrow("bus unavailable");
    bus.down = false;
    expect(await relay.execute()).toEqual(events.slice(0, 20).map((e) => e.id));
    expect(await relay.execute()).toEqual(events.slice(20).map((e) => e.id));
    expect(await relay.execute()).toEqual([]);
    expect(bus.ids()).toEqual(events.map((e) => e.id));
  });
});

describe("events messages", () => {
  it("carry up to 25 envelopes and stay under 40 KB of JSON, every envelope once and in order", () => {
    const small = Array.from({ length: 60 }, (_, n) => event(n));
    expect(eventMessages(small).map((m) => (m.body as EventEnvelope[]).length)).toEqual([25, 25, 10]);
    const large = Array.from({ length: 10 }, (_, n) => ({ ...event(n), data: { text: "x".repeat(15_000) } }));
    const messages = eventMessages(large);
    for (const m of messages) expect(Buffer.byteLength(JSON.stringify(m.body))).toBeLessThan(40_000 + 100);
    expect(messages.flatMap((m) => m.body as EventEnvelope[])).toEqual(large);
  });
});
