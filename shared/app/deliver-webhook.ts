import { mapConcurrent } from "../domain/concurrency";
import { failed, succeeded, withAttempt, type DeliveryRef, type StoredDelivery } from "../domain/delivery";
import { nextRetryDelay } from "../domain/delivery-schedule";
import type { Clock } from "../ports/clock";
import type { DeliveryRepository } from "../ports/delivery-repository";
import type { MessageBus, OutgoingMessage } from "../ports/message-bus";
import type { DeliveryTarget, WebhookDirectory, WebhookSender } from "../ports/webhook-delivery";

/** Builds the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) for one attempt. */
export type SignWebhook = (id: string, timestamp: Date, body: string, secrets: readonly string[]) => Record<string, string>;

/** The body of a `deliveries` message: the deliveries to attempt (a message may name several). */
export interface DeliveriesMessage {
  deliveries: DeliveryRef[];
}

/** Refs per `deliveries` message. */
const REFS_PER_MESSAGE = 32;

/** The `deliveries` messages naming these deliveries, up to 32 a message. */
export function deliveriesMessages(refs: readonly DeliveryRef[]): OutgoingMessage[] {
  const messages: OutgoingMessage[] = [];
  for (let i = 0; i < refs.length; i += REFS_PER_MESSAGE) messages.push({ body: { deliveries: refs.slice(i, i + REFS_PER_MESSAGE) } satisfies DeliveriesMessage });
  return messages;
}

export interface DeliveryOptions {
  /** WEBHOOK_RETRY_SCHEDULE in seconds. */
  retrySchedule: readonly number[];
  /**
   * How long a claimed attempt holds the delivery: longer than the sender's 15 s time-out, so a
   * second copy of the message skips it, and short enough that the sweep takes over after a crash.
   */
  claimSeconds?: number;
  random?: () => number;
}

const DEFAULT_CLAIM_SECONDS = 60;
/** Attempts in flight per message (the host runs many messages at once). */
const ATTEMPTS_PER_MESSAGE = 8;

/** What one attempt came to, for the caller (the test endpoint answers with the record). */
export type AttemptOutcome = { attempted: true; delivery: StoredDelivery } | { attempted: false; reason: "missing" | "not-pending" | "not-due" | "claimed-elsewhere" | "stopped" };

/**
 * Attempts webhook deliveries: one POST per due pending delivery, claimed first with a conditional
 * write so that two copies of one message never POST at the same time, then the outcome recorded and
 * the next attempt scheduled (record first, then the delayed message; the sweep covers a crash between).
 */
export class DeliverWebhooks {
  private readonly claimSeconds: number;
  private readonly random: () => number;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly directory: WebhookDirectory,
    private readonly sender: WebhookSender,
    private readonly sign: SignWebhook,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly options: DeliveryOptions,
  ) {
    this.claimSeconds = options.claimSeconds ?? DEFAULT_CLAIM_SECONDS;
    this.random = options.random ?? Math.random;
  }

  /** Attempts each delivery a message names that is pending and due. */
  async run(message: DeliveriesMessage): Promise<void> {
    await mapConcurrent(message.deliveries, ATTEMPTS_PER_MESSAGE, (ref) => this.attempt(ref));
  }

  /** One attempt of one delivery; `evenIfDisabled` for the test endpoint, which checks a disabled webhook too. */
  async attempt(ref: DeliveryRef, options: { evenIfDisabled?: boolean } = {}): Promise<AttemptOutcome> {
    const found = await this.deliveries.get(ref);
    if (found === undefined) return { attempted: false, reason: "missing" };
    if (found.status !== "pending") return { attempted: false, reason: "not-pending" };
    const now = this.clock.now();
    if (found.nextAttemptAt !== undefined && found.nextAttemptAt > now.toISOString()) return { attempted: false, reason: "not-due" };

    const target = await this.directory.target(ref.webhookId);
    if (target === undefined || (target.status !== "enabled" && options.evenIfDisabled !== true)) {
      const reason = target === undefined ? "the webhook was deleted" : "the webhook is disabled";
      await this.deliveries.update(ref, (d) => (d.status === "pending" ? failed(d, now, reason) : undefined));
      return { attempted: false, reason: "stopped" };
    }

    // The claim: pushing the due time past the attempt makes every other copy of the message skip it.
    const claimed: StoredDelivery = { ...found, nextAttemptAt: this.claimUntil(now) };
    const etag = await this.deliveries.replaceIfUnchanged(claimed, found._etag ?? "");
    if (etag === undefined) return { attempted: false, reason: "claimed-elsewhere" };
    return { attempted: true, delivery: await this.sendClaimed(claimed, etag, target) };
  }

  /** The due time that claims a delivery for one attempt starting at `now`. */
  claimUntil(now: Date): string {
    return new Date(now.getTime() + this.claimSeconds * 1000).toISOString();
  }

  /** One claimed delivery: see sendClaimedMany. */
  async sendClaimed(claimed: StoredDelivery, etag: string, target: DeliveryTarget): Promise<StoredDelivery> {
    const [delivery] = await this.sendClaimedMany([{ claimed, etag, target }]);
    return delivery!;
  }

  /**
   * POSTs deliveries this caller holds the claim on (each stored at version `etag`) concurrently,
   * records the outcomes in one round trip and schedules the next attempts. The fan-out calls it
   * straight after creating an event's deliveries already claimed, so a first attempt costs a share of
   * one create, one POST and a share of one write.
   */
  async sendClaimedMany(items: readonly { claimed: StoredDelivery; etag: string; target: DeliveryTarget }[]): Promise<StoredDelivery[]> {
    const outcomes = await Promise.all(items.map(({ claimed, target }) => this.post(claimed, target)));
    // Only an attempt's claim holder writes here; losing means another writer (a manual action, a
    // 410 elsewhere) changed the record meanwhile, and its version stands.
    const written = await this.deliveries.replaceManyIfUnchanged(outcomes.map((o, i) => ({ delivery: o.next, etag: items[i]!.etag })));
    const results: StoredDelivery[] = [];
    const retries: OutgoingMessage[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const ref: DeliveryRef = { webhookId: outcome.next.webhookId, id: outcome.next.id };
      if (written[i] === undefined) {
        results.push((await this.deliveries.get(ref)) ?? outcome.next);
        continue;
      }
      if (outcome.gone) await this.stopWebhook(ref.webhookId, "the endpoint answered 410 Gone");
      if (outcome.retryIn !== undefined) retries.push({ body: { deliveries: [ref] } satisfies DeliveriesMessage, delaySeconds: Math.ceil(outcome.retryIn) });
      results.push(outcome.next);
    }
    if (retries.length > 0) await this.bus.send("deliveries", retries);
    return results;
  }

  /** One POST and what it comes to: the record after it, and the delay before the next attempt if any. */
  private async post(claimed: StoredDelivery, target: DeliveryTarget): Promise<{ next: StoredDelivery; retryIn?: number; gone: boolean }> {
    const sentAt = this.clock.now();
    const result = await this.sender.post(target.url, this.sign(claimed.id, sentAt, claimed.payload, target.signingSecrets), claimed.payload);
    const done = this.clock.now();
    const next = withAttempt(claimed, {
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
