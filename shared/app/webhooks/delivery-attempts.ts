import { AsyncResource } from "node:async_hooks";
import pLimit from "p-limit";
import { failed, succeeded, withAttempt, type DeliveryRef, type StoredDelivery } from "../../domain/delivery";
import { attemptEntry } from "../../domain/delivery-attempt";
import { nextRetryDelay } from "../../domain/delivery-schedule";
import type { Clock } from "../../ports/clock";
import { deliveryKey, type DeliveryRepository } from "../../ports/delivery-repository";
import type { MessageBus } from "../../ports/message-bus";
import type { DeliveryTarget, WebhookDirectory, WebhookSender } from "../../ports/webhook-delivery";
import { retryMessages, type DeliveryTicket } from "./deliveries-message";
import { WebhookHealthTally } from "./webhook-health-tally";

/** Builds the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) for one attempt. */
export type SignWebhook = (
  id: string,
  timestamp: Date,
  body: string,
  secrets: readonly string[],
) => Record<string, string>;

export interface DeliveryAttemptsDeps {
  deliveries: DeliveryRepository;
  directory: WebhookDirectory;
  sender: WebhookSender;
  sign: SignWebhook;
  bus: MessageBus;
  clock: Clock;
  /** WEBHOOK_RETRY_SCHEDULE in seconds. */
  retrySchedule: readonly number[];
  random?: () => number;
}

/** POSTs in flight per instance, whatever the number of messages the host runs at once (the sender keeps as many sockets). */
const POSTS_AT_ONCE = 256;

/** One attempt to make: the record as it is (stored at `etag`, or not stored yet: a first attempt) and where it goes. */
export interface Attempt {
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
 * Makes webhook delivery attempts with one store write per attempt: POST, then record the outcome (the
 * first attempt creates the record, a retry replaces it conditionally on the version it read). Until
 * the outcome is written, the message that asked for the attempt (an `events` or a `deliveries`
 * message) is the only record of it: a crash in between makes the message come back and the attempt
 * is made again, so only deliveries in flight at a crash can reach an endpoint twice (their webhook-id
 * lets it de-duplicate). Within an instance, each delivery is held from its read to its outcome, so two
 * copies of one message never attempt it at once. Shared by the fan-out, the retries and the test event.
 */
export class DeliveryAttempts {
  private readonly random: () => number;
  private readonly posting = pLimit(POSTS_AT_ONCE);
  /** Deliveries this instance is reading or attempting now: a second copy of their message skips them. */
  private readonly holding = new Set<string>();

  constructor(private readonly deps: DeliveryAttemptsDeps) {
    this.random = deps.random ?? Math.random;
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

  /**
   * POSTs each delivery and records its outcome: creates the record of a first attempt (a delivery
   * whose record another writer created meanwhile keeps that record), replaces a stored one on the
   * version read. Sends the retry messages of those that failed and disables a webhook that answered
   * 410. Returns the records as stored.
   */
  async attempt(items: readonly Attempt[]): Promise<StoredDelivery[]> {
    // Bound to this caller's async context: a POST queued behind other invocations' POSTs runs in this
    // invocation's trace (p-limit would run it in the context of whichever POST freed its slot).
    const outcomes = await Promise.all(
      items.map((item) => this.posting(AsyncResource.bind(() => this.post(item.delivery, item.target)))),
    );
    const recorded = await this.record(items, outcomes);
    const retries: { ticket: DeliveryTicket; delaySeconds: number }[] = [];
    const gone = new Set<string>();
    const health = new WebhookHealthTally(this.deps.clock.now());
    for (const [i, outcome] of outcomes.entries()) {
      if (recorded[i]?.ours !== true) continue; // another writer's version stands
      health.add(outcome.next);
      if (outcome.gone) gone.add(outcome.next.webhookId);
      const { webhookId, id, nextAttemptAt } = outcome.next;
      if (outcome.retryIn !== undefined)
        retries.push({
          ticket: { webhookId, id, ...(nextAttemptAt !== undefined ? { due: nextAttemptAt } : {}) },
          delaySeconds: outcome.retryIn,
        });
    }
    for (const webhookId of gone) await this.stopWebhook(webhookId, "the endpoint answered 410 Gone");
    for (const [webhookId, outcome] of health.outcomes(gone)) {
      const disabled = await this.deps.directory.recordOutcome(webhookId, outcome);
      if (disabled !== undefined) await this.stopWebhook(webhookId, disabled, false);
    }
    // The record first, then its message: a crash in between leaves a pending record the sweep finds.
    if (retries.length > 0) await this.deps.bus.send("deliveries", retryMessages(retries));
    return recorded.map((r) => r.stored);
  }

  /**
   * Writes the outcomes in two round trips at most (creates, conditional replaces). Returns, per item,
   * the record as stored and whether it is this attempt's outcome.
   */
  private async record(
    items: readonly Attempt[],
    outcomes: readonly Outcome[],
  ): Promise<{ stored: StoredDelivery; ours: boolean }[]> {
    const creates = items.flatMap((item, i) => (item.etag === undefined ? [i] : []));
    const replaces = items.flatMap((item, i) => (item.etag !== undefined ? [i] : []));
    const [created, replaced] = await Promise.all([
      creates.length === 0 ? [] : this.deps.deliveries.createManyIfAbsent(creates.map((i) => outcomes[i]!.next)),
      replaces.length === 0
        ? []
        : this.deps.deliveries.replaceManyIfUnchanged(
            replaces.map((i) => ({ delivery: outcomes[i]!.next, etag: items[i]!.etag! })),
          ),
    ]);
    const recorded = outcomes.map((o) => ({ stored: o.next, ours: true }));
    const lost = [
      ...creates.filter((_, n) => created[n] === undefined),
      ...replaces.filter((_, n) => replaced[n] === undefined),
    ];
    for (const i of lost) {
      const { next } = outcomes[i]!;
      const read = items[i]!.delivery;
      // Changed since it was read: by a manual action or a 410 elsewhere (theirs stands), or by a
      // concurrent copy elsewhere that recorded an attempt (it counts). Only a record still as it was
      // read takes this outcome.
      let ours = false;
      const current = await this.deps.deliveries.update(next, (d) => {
        ours = d.status === read.status && d.attempts === read.attempts;
        return ours ? next : undefined;
      });
      recorded[i] = { stored: current ?? next, ours: current !== undefined && ours };
    }
    return recorded;
  }

  /** One POST and what it comes to. */
  private async post(delivery: StoredDelivery, target: DeliveryTarget): Promise<Outcome> {
    const sentAt = this.deps.clock.now();
    const result = await this.deps.sender.post(
      target.url,
      this.deps.sign(delivery.id, sentAt, delivery.payload, target.signingSecrets),
      delivery.payload,
    );
    const done = this.deps.clock.now();
    const next = withAttempt(delivery, attemptEntry({ ...result, at: sentAt }));
    const status = result.statusCode;
    if (status !== undefined && status >= 200 && status < 300) return { next: succeeded(next, done), gone: false };
    if (status === 410)
      return { next: failed(next, done, "the endpoint answered 410 Gone; the webhook was disabled"), gone: true };
    const retryIn = nextRetryDelay(
      this.deps.retrySchedule,
      next.attempts - next.scheduleOffset,
      result.retryAfterSeconds,
      this.random,
    );
    if (retryIn === undefined)
      return {
        next: failed(next, done, `no 2xx answer after ${next.attempts} attempts; the retry schedule is spent`),
        gone: false,
      };
    return {
      next: { ...next, nextAttemptAt: new Date(done.getTime() + retryIn * 1000).toISOString() },
      retryIn,
      gone: false,
    };
  }

  /**
   * Disables the webhook (unless that is done already) and fails its other pending deliveries, which
   * would only meet the same answer; Recover sends them again once it is enabled.
   */
  private async stopWebhook(webhookId: string, reason: string, disable = true): Promise<void> {
    if (disable) await this.deps.directory.disable(webhookId, reason);
    const now = this.deps.clock.now();
    for (const ref of await this.deps.deliveries.pendingOf(webhookId, 1000)) {
      await this.deps.deliveries.update(ref, (d) =>
        d.status === "pending" ? failed(d, now, `the webhook was disabled (${reason})`) : undefined,
      );
    }
  }
}
