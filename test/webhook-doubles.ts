/**
 * In-memory stand-ins for the webhook delivery side's ports (store, directory, bus, outbox), for the
 * unit tests of its use cases: what they decide, attempt by attempt, under a clock the test moves. The
 * adapters behind these ports have tests of their own against the Cosmos stand-in and the runtime.
 */
import {
  deliveryKey,
  type DeliveryRepository,
  type DueDelivery,
  type VersionedDelivery,
} from "../shared/ports/delivery-repository";
import type { DeliveryRef, StoredDelivery } from "../shared/domain/delivery";
import { deliveryOrder, type DeliveryRecovery } from "../shared/domain/delivery-recovery";
import type { CursorPage } from "../shared/domain/page-request";
import { afterOutcome, type WebhookOutcome } from "../shared/domain/webhook-health";
import type { DeliveryRecoveries, VersionedRecovery } from "../shared/ports/delivery-recoveries";
import type { MessageBus, OutgoingMessage, QueueName } from "../shared/ports/message-bus";
import type {
  DeliveryTarget,
  WebhookDirectory,
  WebhookPostResult,
  WebhookSender,
} from "../shared/ports/webhook-delivery";
import { DeliverWebhooks } from "../shared/app/webhooks/deliver-webhooks";
import type { DeliveriesMessage, RecoveryMessage } from "../shared/app/webhooks/deliveries-message";
import { DeliveryAttempts } from "../shared/app/webhooks/delivery-attempts";
import { FanOutEvents } from "../shared/app/webhooks/fan-out-events";
import { RecoverWebhookDeliveries } from "../shared/app/webhooks/recover-webhook-deliveries";
import { RetryWebhookDelivery } from "../shared/app/webhooks/retry-webhook-delivery";
import { RunDeliveryRecovery } from "../shared/app/webhooks/run-delivery-recovery";
import { SweepDeliveries } from "../shared/app/webhooks/sweep-deliveries";
import { TestWebhook } from "../shared/app/webhooks/test-webhook";

/** What the fake sender answers a POST (the headers it sent are added). */
export type Answer = Omit<WebhookPostResult, "requestHeaders">;

/** The events whose fan-out was recorded as complete, in order. */
export class FanOutRecord {
  readonly fannedOut: string[] = [];
  async markFannedOut(ids: readonly string[]) {
    this.fannedOut.push(...ids);
  }
}

export class MemoryRecoveries implements DeliveryRecoveries {
  readonly docs = new Map<string, VersionedRecovery>();
  private version = 0;
  async get(webhookId: string) {
    const r = this.docs.get(webhookId);
    return r === undefined ? undefined : structuredClone(r);
  }
  async start(recovery: DeliveryRecovery) {
    if (this.docs.get(recovery.webhookId)?.status === "running") return false;
    this.docs.set(recovery.webhookId, { ...structuredClone(recovery), _etag: String(++this.version) });
    return true;
  }
  async replaceIfUnchanged(recovery: DeliveryRecovery, etag: string) {
    if (this.docs.get(recovery.webhookId)?._etag !== etag) return undefined;
    const next = String(++this.version);
    this.docs.set(recovery.webhookId, { ...structuredClone(recovery), _etag: next });
    return next;
  }
  async stalled(before: string) {
    return [...this.docs.values()].filter((r) => r.status === "running" && r.updatedAt < before);
  }
}

export class MemoryDeliveries implements DeliveryRepository {
  readonly docs = new Map<string, VersionedDelivery>();
  private version = 0;
  private key = (r: DeliveryRef) => `${r.webhookId}/${r.id}`;
  async createIfAbsent(d: StoredDelivery) {
    if (this.docs.has(this.key(d))) return undefined;
    const etag = String(++this.version);
    this.docs.set(this.key(d), { ...d, _etag: etag });
    return etag;
  }
  /** Set to make the next bulk create fail (a crash after the POSTs, before their outcomes are written). */
  failNextCreate = false;
  async createManyIfAbsent(ds: readonly StoredDelivery[]) {
    if (this.failNextCreate) {
      this.failNextCreate = false;
      throw new Error("the store went away");
    }
    const out = [];
    for (const d of ds) out.push(await this.createIfAbsent(d));
    return out;
  }
  async replaceManyIfUnchanged(items: readonly { delivery: StoredDelivery; etag: string }[]) {
    const out = [];
    for (const { delivery, etag } of items) out.push(await this.replaceIfUnchanged(delivery, etag));
    return out;
  }
  async get(ref: DeliveryRef) {
    const d = this.docs.get(this.key(ref));
    return d === undefined ? undefined : structuredClone(d);
  }
  async getMany(refs: readonly DeliveryRef[]) {
    const found = new Map<string, VersionedDelivery>();
    for (const ref of refs) {
      const d = await this.get(ref);
      if (d !== undefined) found.set(deliveryKey(ref), d);
    }
    return found;
  }
  async replaceIfUnchanged(d: StoredDelivery, etag: string) {
    const current = this.docs.get(this.key(d));
    if (current?._etag !== etag) return undefined;
    const next = String(++this.version);
    this.docs.set(this.key(d), { ...structuredClone(d), _etag: next });
    return next;
  }
  async update(ref: DeliveryRef, change: (c: StoredDelivery) => StoredDelivery | undefined) {
    const current = await this.get(ref);
    if (current === undefined) return undefined;
    const next = change(current);
    if (next === undefined) return current;
    this.docs.set(this.key(ref), { ...next, _etag: String(++this.version) });
    return next;
  }
  async failedBetween(webhookId: string, window: { since: string; until: string }, after: string, limit: number) {
    return this.failed(webhookId, window)
      .filter((d) => deliveryOrder(d) > after)
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }
  async countFailedBetween(webhookId: string, window: { since: string; until: string }) {
    return this.failed(webhookId, window).length;
  }
  private failed(webhookId: string, { since, until }: { since: string; until: string }) {
    return [...this.docs.values()]
      .filter(
        (d) =>
          d.webhookId === webhookId &&
          d.status === "failed" &&
          (d.completedAt ?? "") >= since &&
          (d.completedAt ?? "") <= until,
      )
      .sort((a, b) => deliveryOrder(a).localeCompare(deliveryOrder(b)));
  }
  async list(webhookId: string): Promise<CursorPage<StoredDelivery>> {
    const items = [...this.docs.values()].filter((d) => d.webhookId === webhookId);
    return { items, totalItems: items.length, nextCursor: null };
  }
  async pendingOf(webhookId: string) {
    return [...this.docs.values()]
      .filter((d) => d.webhookId === webhookId && d.status === "pending")
      .map(({ webhookId: w, id }) => ({ webhookId: w, id }));
  }
  async *overdue(before: string, pageSize: number): AsyncIterable<DueDelivery[]> {
    const due = [...this.docs.values()]
      .filter((d) => d.status === "pending" && (d.nextAttemptAt ?? "") < before)
      .map(({ webhookId, id, nextAttemptAt }) => ({ webhookId, id, nextAttemptAt: nextAttemptAt! }));
    for (let i = 0; i < due.length; i += pageSize) yield due.slice(i, i + pageSize);
  }
}

export class Directory implements WebhookDirectory {
  readonly targets = new Map<string, DeliveryTarget>();
  readonly disabled: [string, string][] = [];
  add(webhookId: string, events: DeliveryTarget["events"] = ["transaction.settled"]) {
    this.targets.set(webhookId, {
      webhookId,
      url: `https://example.test/${webhookId}`,
      status: "enabled",
      events,
      signingSecrets: ["whsec_a", "whsec_b"],
    });
  }
  async subscribedTo(event: string) {
    return [...this.targets.values()].filter(
      (t) => t.status === "enabled" && (t.events as readonly string[]).includes(event),
    );
  }
  async target(id: string) {
    return this.targets.get(id);
  }
  async disable(id: string, reason: string) {
    this.disabled.push([id, reason]);
    const t = this.targets.get(id);
    if (t) this.targets.set(id, { ...t, status: "disabled" });
  }
  /** The webhooks as stored (for the health rule): status and failingSince. */
  disableAfterDays = 5;
  readonly outcomes: [string, WebhookOutcome][] = [];
  async recordOutcome(id: string, outcome: WebhookOutcome) {
    this.outcomes.push([id, outcome]);
    const t = this.targets.get(id);
    if (t === undefined) return undefined;
    const stored = { ...t, events: [...t.events], id, description: null, createdAt: "", updatedAt: "", secret: "" };
    const next = afterOutcome(stored, outcome, this.disableAfterDays);
    if (next === undefined) return undefined;
    const { failingSince } = next;
    this.targets.set(id, { ...t, status: next.status, ...(failingSince !== undefined ? { failingSince } : {}) });
    if (failingSince === undefined) delete this.targets.get(id)!.failingSince;
    if (next.status === "disabled" && t.status === "enabled") {
      this.disabled.push([id, next.disabledReason ?? ""]);
      return next.disabledReason;
    }
    return undefined;
  }
}

export class Bus implements MessageBus {
  readonly sent: { queue: QueueName; message: OutgoingMessage }[] = [];
  async send(queue: QueueName, messages: readonly OutgoingMessage[]) {
    for (const message of messages) this.sent.push({ queue, message });
  }
}

export function setup(answers: Answer[]) {
  let now = new Date("2026-01-01T00:00:00Z");
  const clock = { now: () => new Date(now) };
  const deliveries = new MemoryDeliveries();
  const directory = new Directory();
  const bus = new Bus();
  const posts: { url: string; headers: Record<string, string>; body: string }[] = [];
  /** While set, every POST waits for it (a slow endpoint: the attempt is in flight). */
  const gate: { hold?: Promise<void> } = {};
  /** POSTs in flight now, and the most there ever were at once. */
  const concurrency = { now: 0, most: 0 };
  const sender: WebhookSender = {
    async post(url, headers, body) {
      posts.push({ url, headers: { ...headers }, body });
      concurrency.most = Math.max(concurrency.most, ++concurrency.now);
      await (gate.hold ?? Promise.resolve()); // a moment in flight, at least
      concurrency.now--;
      const answer = answers.shift() ?? { statusCode: 200, durationMs: 3 };
      return { requestHeaders: { ...headers, "content-type": "application/json" }, ...answer };
    },
  };
  const sign = (id: string, at: Date, _body: string, secrets: readonly string[]) => ({
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => `v1,${s}`).join(" "),
  });
  const attempts = new DeliveryAttempts({
    deliveries,
    directory,
    sender,
    sign,
    bus,
    clock,
    retrySchedule: [5, 60],
    random: () => 0.5,
  });
  const outbox = new FanOutRecord();
  const recoveries = new MemoryRecoveries();
  const deps = { deliveries, directory, attempts, bus, clock, outbox, recoveries };
  const deliver = new DeliverWebhooks(deps);
  const fanOut = new FanOutEvents(deps);
  const retryDelivery = new RetryWebhookDelivery(deps);
  const testWebhook = new TestWebhook(deps);
  const advance = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));
  const deliveryMessages = () => bus.sent.filter((s) => s.queue === "deliveries").map((s) => s.message);
  /** Runs the latest `deliveries` message, as the queue would once its delay is over. */
  const runLatest = () => deliver.execute(deliveryMessages().at(-1)!.body as DeliveriesMessage);
  const sweep = new SweepDeliveries({ ...deps, graceSeconds: 60 });
  const recover = new RecoverWebhookDeliveries(deps);
  const runRecovery = new RunDeliveryRecovery(deps);
  /** Runs the `deliveries` messages sent so far that carry a recovery's step, in order, until none is left. */
  const runRecoverySteps = async () => {
    let ran = 0;
    for (;;) {
      const steps = bus.sent.filter((s) => s.queue === "deliveries" && "recovery" in (s.message.body as object));
      if (steps.length <= ran) return;
      await runRecovery.execute((steps[ran]!.message.body as RecoveryMessage).recovery);
      ran++;
    }
  };
  return {
    deliveries,
    directory,
    bus,
    posts,
    deliver,
    fanOut,
    retryDelivery,
    testWebhook,
    gate,
    answers,
    concurrency,
    sweep,
    recover,
    runRecovery,
    runRecoverySteps,
    outbox,
    recoveries,
    clock,
    advance,
    deliveryMessages,
    runLatest,
  };
}
