import { CosmosClient } from "@azure/cosmos";
import { QueueServiceClient } from "@azure/storage-queue";
import { afterAll, describe, expect, it, vi } from "vitest";
import { decodeMessage } from "../local/queue-host";
import { eventIdOf, type EventEnvelope } from "../shared/domain/events";
import { call, tokenFor } from "./http";
import { COSMOS_KEY, securityRecord } from "./investment-fixtures";
import { BOOTSTRAP, runtimeEnv, startRuntime, tempDir, type Runtime } from "./runtime";
import { withDiagnostics } from "./with-diagnostics";

interface OutboxEntry extends EventEnvelope {
  status: "pending" | "published";
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * At-least-once from the outbox to the `events` queue across a crash: events whose data is stored but
 * whose publish never happened (the bus refused it, or the process died right after appending) reach
 * the queue after a `kill -9` and a restart on the same data, once each, and are marked published.
 */
describe("outbox relay across a crash", () => {
  const data = tempDir("ids-outbox-crash-");
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    data.remove();
  }, 60_000);

  it("publishes every event that was stored but not published before a kill -9, exactly once", async () => {
    const env = await runtimeEnv(data.path, {
      OUTBOX_RELAY_SCHEDULE: "*/1 * * * * *",
      OUTBOX_RELAY_GRACE_SECONDS: "1",
      // The queue is what this test reads: the fan-out must not consume it.
      "AzureWebJobs.events-fan-out.Disabled": "true",
    });
    const queues = QueueServiceClient.fromConnectionString(env.STORAGE_CONNECTION_STRING ?? "");
    const cosmos = new CosmosClient({
      endpoint: env.COSMOS_ENDPOINT ?? "",
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const events = cosmos.database("investment-data").container("events");
    const outboxEntries = async (): Promise<OutboxEntry[]> =>
      (
        await events.items
          .query<OutboxEntry>("SELECT c.id, c.event, c.timestamp, c.data, c.status FROM c WHERE c.docType = 'outbox'")
          .fetchAll()
      ).resources;

    const first = await startRuntime(env);
    runtimes.push(first);
    // The bus refuses every publish from here on: the events queue is gone until the next start provisions it.
    await queues.getQueueClient("events").delete();
    const token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, first.baseUrl);
    const imported = await call("POST", "/api/v1/import/securities", {
      base: first.baseUrl,
      token,
      body: { securities: [securityRecord(), securityRecord()] },
    });
    expect(imported.status, imported.text).toBe(200);
    // What a process that died right after appending leaves behind: pending entries nobody sent.
    const orphans: EventEnvelope[] = [1, 2, 3].map((n) => ({
      id: eventIdOf("refresh_job.failed", `crash-test-${n}`),
      event: "refresh_job.failed",
      timestamp: new Date().toISOString(),
      data: { jobId: `job_crash_${n}`, error: "process ended" },
    }));
    for (const orphan of orphans)
      await events.items.create({
        ...orphan,
        docType: "outbox",
        status: "pending",
        appendedAt: new Date().toISOString(),
      });

    const before = await outboxEntries();
    expect(before.some((e) => e.event === "refresh_job.completed" && e.data.jobId === imported.body.data.jobId)).toBe(
      true,
    );
    expect(before.length).toBeGreaterThanOrEqual(orphans.length + 1);
    expect(before.filter((e) => e.status !== "pending")).toEqual([]);
    await sleep(2_500); // relay runs meanwhile, and fail: nothing can be published
    expect((await outboxEntries()).filter((e) => e.status !== "pending")).toEqual([]);
    await first.kill();

    const second = await startRuntime(env);
    runtimes.push(second);
    await withDiagnostics(
      vi.waitFor(
        async () => {
          if ((await outboxEntries()).some((e) => e.status !== "published"))
            throw new Error("outbox entries still pending");
        },
        { timeout: 30_000, interval: 250 },
      ),
      () => second.output(),
    );
    await sleep(3_000); // a few more relay runs: what is published must not be sent again

    const after = await outboxEntries();
    expect(after.map((e) => e.id).sort()).toEqual(before.map((e) => e.id).sort());
    const queue = queues.getQueueClient("events");
    const received: EventEnvelope[] = [];
    for (;;) {
      const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 60 });
      if (receivedMessageItems.length === 0) break;
      received.push(
        ...receivedMessageItems.flatMap((m) =>
          [decodeMessage(m.messageText) as EventEnvelope | EventEnvelope[]].flat(),
        ),
      );
    }
    const envelope = ({ id, event, timestamp, data }: EventEnvelope): EventEnvelope => ({ id, event, timestamp, data });
    expect(received.map((m) => m.id).sort()).toEqual(before.map((e) => e.id).sort());
    expect(received).toEqual(expect.arrayContaining(before.map(envelope)));

    // With the bus up, a write sends its events itself: on the queue before it answers, and pending until
    // the fan-out (off here) records them.
    const live = await call("POST", "/api/v1/import/securities", {
      base: second.baseUrl,
      token: await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret, undefined, second.baseUrl),
      body: { securities: [securityRecord()] },
    });
    expect(live.status, live.text).toBe(200);
    const completed = (await outboxEntries()).find(
      (e) => e.event === "refresh_job.completed" && e.data.jobId === live.body.data.jobId,
    );
    expect(completed?.status).toBe("pending");
    const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 60 });
    expect(
      receivedMessageItems.flatMap((m) => [decodeMessage(m.messageText) as EventEnvelope | EventEnvelope[]].flat()),
    ).toContainEqual(envelope(completed as EventEnvelope));
    cosmos.dispose();
  }, 120_000);
});
