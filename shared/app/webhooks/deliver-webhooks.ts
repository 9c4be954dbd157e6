import pLimit from "p-limit";
import { failed, succeeded, withAttempt, type DeliveryRef, type StoredDelivery } from "../../domain/delivery";
import { nextRetryDelay } from "../../domain/delivery-schedule";
import type { Clock } from "../../ports/clock";
import { deliveryKey, type DeliveryRepository } from "../../ports/delivery-repository";
import type { MessageBus } from "../../ports/message-bus";
import type { DeliveryTarget, WebhookDirectory, WebhookSender } from "../../ports/webhook-delivery";
import { retryMessages, type DeliveriesMessage, type DeliveryTicket } from "./deliveries-message";

/** Builds the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) for one attempt. */
export type SignWebhook = (id: string, timestamp: Date, body: string, secrets: readonly string[]) => Record<string, string>;

export interface DeliveryOptions {
  /** WEBHOOK_RETRY_SCHEDULE in seconds. */
  retrySchedule: readonly number[];
  random?: () => number;
}

/** POSTs in flight per instance, whatever the number of messages the host runs at once (the sender keeps as many sockets). */
const POSTS_AT_ONCE = 256;

/** One attempt to make: the record as it is (stored at `etag`, or not stored yet) and where it goes. */
interface Attempt {
  delivery: StoredDelivery;
  etag?: string;
  target: DeliveryTarget;
}

/** What one POST came to: the record after it, and the delay before the next attempt if any. */
interface Outcome {
  next: StoredDelivery;
  retryIn?: number;
  gone: boolean;
}

/**
 * Attempts webhook deliveries with one store write per attempt: POST, then record the outcome (the first
 * attempt creates the record, a retry replaces it conditionally on the version it read). Until the
 * outcome is written, the queue message that asked for the attempt is the only record of it: a crash
 * in between makes the message come back and the attempt is made again, so only deliveries in flight
 * at a crash can reach an endpoint twice (their webhook-id lets it de-duplicate). Two copies of one
 * message are kept apart by the due time each message names (a copy that comes after an attempt is
 * stale) and, within an instance, by holding each delivery from its read to its outcome.
 */
export class DeliverWebhooks {
  private readonly random: () => number;
  private readonly posting = pLimit(POSTS_AT_ONCE);
  /** Deliveries this instance is reading or attempting now: a second copy of their message skips them. */
  private readonly holding = new Set<string>();

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly directory: WebhookDirectory,
    private readonly sender: WebhookSender,
    private readonly sign: SignWebhook,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly options: DeliveryOptions,
  ) {
    this.random = options.random ?? Math.random;
  }

  /** Retries: attempts each delivery a message names that is pending, due, and still due at the time the message names. */
  async run(message: DeliveriesMessage): Promise<void> {
    const tickets = [...new Map(message.deliveries.map((t) => [deliveryKey(t), t])).values()];
    await this.exclusively(tickets, async (held) => {
      const found = await this.deliveries.getMany(held);
      const now = this.clock.now();
      const attempts: Attempt[] = [];
      for (const ticket of held) {
        const stored = found.get(deliveryKey(ticket));
        if (stored === undefined || !isDue(stored, ticket, now)) continue;
        const target = await this.directory.target(ticket.webhookId);
        if (target === undefined || target.status !== "enabled") {
          const reason = target === undefined ? "the webhook was deleted" : "the webhook is disabled";
          await this.deliveries.update(ticket, (d) => (d.status === "pending" ? failed(d, now, reason) : undefined));
          continue;
        }
        const { _etag: etag, ...delivery } = stored;
        attempts.push({ delivery, etag: etag ?? "", target });
      }
      await this.attempt(attempts);
    });
  }

  /**
   * First attempts of deliveries not stored yet (the fan-out, the test endpoint): POSTs them and creates
   * their records with the outcome. A delivery whose record another writer created meanwhile keeps
   * that record. Returns the records as stored.
   */
  firstAttempts(items: readonly { delivery: StoredDelivery; target: DeliveryTarget }[]): Promise<StoredDelivery[]> {
    return this.attempt(items);
  }

  /**
   * Runs `work` on those of `refs` that no other caller in this instance holds, holding them until it
   * ends: whoever reads a delivery to attempt it holds it first, so a second copy of a message either
   * skips it or reads it after the first copy's outcome is written.
   */
  async exclusively<R extends DeliveryRef, T>(refs: readonly R[], work: (held: R[]) => Promise<T>): Promise<T> {
    const held = refs.filter((ref) => {
      const key = deliveryKey(ref);
      if (this.holding.has(key)) return false;
      this.holding.add(key);
      return true;
    });
    try {
      return await work(held);
    } finally {
      for (const ref of held) this.holding.delete(deliveryKey(ref));
    }
  }

  private async attempt(items: readonly Attempt[]): Promise<StoredDelivery[]> {
    const outcomes = await Promise.all(items.map((item) => this.posting(() => this.post(item.delivery, item.target))));
    const recorded = await this.record(items, outcomes);
    const retries: { ticket: DeliveryTicket; delaySeconds: number }[] = [];
    const gone = new Set<string>();
    for (const [i, outcome] of outcomes.entries()) {
      if (recorded[i]?.ours !== true) continue; // another writer's version stands
      if (outcome.gone) gone.add(outcome.next.webhookId);
      const { webhookId, id, nextAttemptAt } = outcome.next;
      if (outcome.retryIn !== undefined) retries.push({ ticket: { webhookId, id, ...(nextAttemptAt !== undefined ? { due: nextAttemptAt } : {}) }, delaySeconds: outcome.retryIn });
    }
    for (const webhookId of gone) await this.stopWebhook(webhookId, "the endpoint answered 410 Gone");
    // The record first, then its message: a crash in between leaves a pending record the sweep finds.
    if (retries.length > 0) await this.bus.send("deliveries", retryMessages(retries));
    return recorded.map((r) => r.stored);
  }

  /**
   * Writes the outcomes in two round trips at most (creates, conditional replaces). Returns, per item,
   * the record as stored and whether it is this attempt's outcome.
   */
  private async record(items: readonly Attempt[], outcomes: readonly Outcome[]): Promise<{ stored: StoredDelivery; ours: boolean }[]> {
    const creates = items.flatMap((item, i) => (item.etag === undefined ? [i] : []));
    const replaces = items.flatMap((item, i) => (item.etag !== undefined ? [i] : []));
    const [created, replaced] = await Promise.all([
      creates.length === 0 ? [] : this.deliveries.createManyIfAbsent(creates.map((i) => outcomes[i]!.next)),
      replaces.length === 0 ? [] : this.deliveries.replaceManyIfUnchanged(replaces.map((i) => ({ delivery: outcomes[i]!.next, etag: items[i]!.etag! }))),
    ]);
    const recorded = outcomes.map((o) => ({ stored: o.next, ours: true }));
    const lost = [...creates.filter((_, n) => created[n] === undefined), ...replaces.filter((_, n) => replaced[n] === undefined)];
    for (const i of lost) {
      const { next } = outcomes[i]!;
      const read = items[i]!.delivery;
      // Changed since it was read: by a manual action or a 410 elsewhere (theirs stands), or by a
      // concurrent copy elsewhere that recorded an attempt (it counts). Only a record still as it was
      // read takes this outcome.
      let ours = false;
      const current = await this.deliveries.update(next, (d) => {
        ours = d.status === read.status && d.attempts === read.attempts;
        return ours ? next : undefined;
      });
      recorded[i] = { stored: current ?? next, ours: current !== undefined && ours };
    }
    return recorded;
  }

  /** One POST and what it comes to. */
  private async post(delivery: StoredDelivery, target: DeliveryTarget): Promise<Outcome> {
    const sentAt = this.clock.now();
    const result = await this.sender.post(target.url, this.sign(delivery.id, sentAt, delivery.payload, target.signingSecrets), delivery.payload);
    const done = this.clock.now();
    const next = withAttempt(delivery, {
      at: sentAt.toISOString(),
      ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      durationMs: Math.round(result.durationMs),
    });
    const status = result.statusCode;
    if (status !== undefined && status >= 200 && status < 300) return { next: succeeded(next, done), gone: false };
    if (status === 410) return { next: failed(next, done, "the endpoint answered 410 Gone; the webhook was disabled"), gone: true };
    const retryIn = nextRetryDelay(this.options.retrySchedule, next.attempts - next.scheduleOffset, result.retryAfterSeconds, this.random);
    if (retryIn === undefined) return { next: failed(next, done, `no 2xx answer after ${next.attempts} attempts; the retry schedule is spent`), gone: false };
    return { next: { ...next, nextAttemptAt: new Date(done.getTime() + retryIn * 1000).toISOString() }, retryIn, gone: false };
  }

  /** Disables the webhook and fails its other pending deliveries, which would only meet the same answer. */
  private async stopWebhook(webhookId: string, reason: string): Promise<void> {
    await this.directory.disable(webhookId, reason);
    const now = this.clock.now();
    for (const ref of await this.deliveries.pendingOf(webhookId, 1000)) {
      await this.deliveries.update(ref, (d) => (d.status === "pending" ? failed(d, now, "the webhook was disabled (its endpoint answered 410 Gone)") : undefined));
    }
  }
}

/** Pending, due now, and (when the message names one) still due at the time the message was sent for. */
function isDue(stored: StoredDelivery, ticket: DeliveryTicket, now: Date): boolean {
  if (stored.status !== "pending") return false;
  if (stored.nextAttemptAt !== undefined && stored.nextAttemptAt > now.toISOString()) return false;
  return ticket.due === undefined || stored.nextAttemptAt === ticket.due;
}
