import { LRUCache } from "lru-cache";
import { eventNames, type EventName } from "../../domain/events";
import type { StoredWebhook } from "../../domain/webhook";
import { afterOutcome, DEFAULT_DISABLE_AFTER_DAYS, mayChange, type WebhookOutcome } from "../../domain/webhook-health";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { Clock } from "../../ports/clock";
import type { DeliveryTarget, WebhookDirectory } from "../../ports/webhook-delivery";
import type { WebhookRepository } from "../../ports/webhook-repository";

/** A webhook with its secrets opened once per read; the previous one carries its end. */
interface Entry {
  target: Omit<DeliveryTarget, "signingSecrets">;
  current: string;
  previous?: { secret: string; until: number };
}

/** Webhooks (with their decrypted secrets) one instance keeps at most; beyond, the least recently used are read again. */
const MAX_WEBHOOKS = 10_000;

/**
 * The webhooks as the delivery side sees them. The fan-out asks `subscribedTo` for every event, so
 * every webhook is read and its secrets decrypted once per `cacheSeconds` per instance, in one read
 * that lists the subscribers of every event; `target` reads one webhook it does not hold by id. A
 * change made here drops that webhook and the subscriber lists at once; one made on another instance
 * shows within `cacheSeconds` (0: nothing is kept).
 */
export class CachedWebhookDirectory implements WebhookDirectory {
  /** Each webhook read, by id. */
  private readonly webhooks: LRUCache<string, Entry>;
  /** The enabled webhooks subscribed to each event, every event's list from one read of them all. */
  private readonly subscribers: LRUCache<EventName, readonly Entry[]>;
  /** The read of every webhook in flight: concurrent callers share it, so a burst of events reads the store once. */
  private filling: Promise<ReadonlyMap<EventName, readonly Entry[]>> | undefined;
  /** Moves on at every change: a read begun before it keeps what it read to itself. */
  private generation = 0;

  constructor(
    private readonly repository: WebhookRepository,
    private readonly cipher: WebhookSecretCipher,
    private readonly clock: Clock,
    private readonly cacheSeconds = 5,
    /** WEBHOOK_DISABLE_AFTER_DAYS. */
    private readonly disableAfterDays = DEFAULT_DISABLE_AFTER_DAYS,
  ) {
    // Entries age by the injected clock, as every other time in the service does, read at every look-up
    // (ttlResolution 0: no "now" reused for a millisecond, so a moved clock is seen at once).
    const options = { ttl: cacheSeconds * 1000, ttlResolution: 0, perf: { now: () => clock.now().getTime() } };
    this.webhooks = new LRUCache({ max: MAX_WEBHOOKS, ...options });
    this.subscribers = new LRUCache({ max: eventNames.length, ...options });
  }

  async subscribedTo(event: EventName): Promise<DeliveryTarget[]> {
    const entries = this.subscribers.get(event) ?? (await this.fill()).get(event) ?? [];
    const now = this.clock.now().getTime();
    return entries.map((e) => this.toTarget(e, now));
  }

  async target(webhookId: string): Promise<DeliveryTarget | undefined> {
    let entry = this.webhooks.get(webhookId);
    if (entry === undefined) {
      // Not held (never read, aged out, or created on another instance since the last read): the store
      // decides, since answering "deleted" would fail its deliveries.
      const generation = this.generation;
      const stored = await this.repository.get(webhookId);
      if (stored === undefined) return undefined;
      entry = this.entry(stored);
      if (this.caching(generation)) this.webhooks.set(webhookId, entry);
    }
    return this.toTarget(entry, this.clock.now().getTime());
  }

  async disable(webhookId: string, reason: string): Promise<void> {
    await this.repository.update(webhookId, (w) =>
      w.status === "disabled" && w.disabledReason === reason
        ? undefined
        : { ...w, status: "disabled", disabledReason: reason, updatedAt: this.clock.now().toISOString() },
    );
    this.forget(webhookId);
  }

  /**
   * Writes only when the outcome can change the webhook as this instance last saw it (a delivery after
   * failures, the first failure after deliveries, a failure past the limit): a healthy or steadily
   * failing endpoint costs no write per attempt. The write decides on the webhook as stored.
   */
  async recordOutcome(webhookId: string, outcome: WebhookOutcome): Promise<string | undefined> {
    const seen = await this.target(webhookId);
    if (seen === undefined || !mayChange(seen, outcome, this.disableAfterDays)) return undefined;
    let disabled: string | undefined;
    await this.repository.update(webhookId, (stored) => {
      const next = afterOutcome(stored, outcome, this.disableAfterDays);
      disabled = next?.status === "disabled" && stored.status !== "disabled" ? next.disabledReason : undefined;
      return next;
    });
    this.forget(webhookId);
    return disabled;
  }

  /**
   * Drops what this instance holds of a webhook changed here: the webhook, and the subscriber lists
   * (its events or status may have changed any of them). A read in flight no longer keeps its result.
   */
  forget(webhookId: string): void {
    this.generation++;
    this.webhooks.delete(webhookId);
    this.subscribers.clear();
    this.filling = undefined;
  }

  private toTarget(entry: Entry, now: number): DeliveryTarget {
    const signingSecrets =
      entry.previous !== undefined && entry.previous.until > now
        ? [entry.current, entry.previous.secret]
        : [entry.current];
    return { ...entry.target, signingSecrets };
  }

  private fill(): Promise<ReadonlyMap<EventName, readonly Entry[]>> {
    if (this.filling === undefined) {
      const filling = this.readAll().finally(() => {
        if (this.filling === filling) this.filling = undefined;
      });
      this.filling = filling;
    }
    return this.filling;
  }

  /** Reads every webhook once and keeps each, and the subscribers of every event, unless a change came meanwhile. */
  private async readAll(): Promise<ReadonlyMap<EventName, readonly Entry[]>> {
    const generation = this.generation;
    const entries = (await this.repository.all()).map((w) => this.entry(w));
    const byEvent = new Map(
      eventNames.map(
        (event) =>
          [event, entries.filter((e) => e.target.status === "enabled" && e.target.events.includes(event))] as const,
      ),
    );
    if (this.caching(generation)) {
      for (const entry of entries) this.webhooks.set(entry.target.webhookId, entry);
      for (const [event, subscribed] of byEvent) this.subscribers.set(event, subscribed);
    }
    return byEvent;
  }

  /** Whether a read begun at `generation` may keep what it read: caching is on and no change came since. */
  private caching(generation: number): boolean {
    // A TTL of 0 would keep entries for ever in lru-cache; here it means "keep nothing".
    return this.cacheSeconds > 0 && generation === this.generation;
  }

  private entry(w: StoredWebhook): Entry {
    const entry: Entry = {
      target: {
        webhookId: w.id,
        url: w.url,
        status: w.status,
        events: w.events,
        ...(w.failingSince !== undefined ? { failingSince: w.failingSince } : {}),
      },
      current: this.cipher.open(w.secret, w.id),
    };
    if (w.previousSecret !== undefined)
      entry.previous = {
        secret: this.cipher.open(w.previousSecret.secret, w.id),
        until: Date.parse(w.previousSecret.until),
      };
    return entry;
  }
}
