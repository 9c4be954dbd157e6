import type { EventName } from "../../domain/events";
import type { StoredWebhook } from "../../domain/webhook";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { Clock } from "../../ports/clock";
import type { DeliveryTarget, WebhookDirectory } from "../../ports/webhook-delivery";
import type { WebhookRepository } from "../../ports/webhook-repository";

/** A webhook with its secrets opened once per cache fill; the previous one carries its end. */
interface Entry {
  target: Omit<DeliveryTarget, "signingSecrets">;
  current: string;
  previous?: { secret: string; until: number };
}

/**
 * The webhooks as the delivery side sees them. The fan-out asks `subscribedTo` for every event, so
 * every webhook is read and its secrets decrypted once per `cacheSeconds` per instance (a change made
 * here drops the cache at once; one made on another instance shows within `cacheSeconds`).
 */
export class CachedWebhookDirectory implements WebhookDirectory {
  private cache: { entries: Map<string, Entry>; until: number } | undefined;
  private filling: Promise<Map<string, Entry>> | undefined;

  constructor(
    private readonly repository: WebhookRepository,
    private readonly cipher: WebhookSecretCipher,
    private readonly clock: Clock,
    private readonly cacheSeconds = 5,
  ) {}

  async subscribedTo(event: EventName): Promise<DeliveryTarget[]> {
    const entries = await this.entries();
    const now = this.clock.now().getTime();
    return [...entries.values()].filter((e) => e.target.status === "enabled" && e.target.events.includes(event)).map((e) => this.toTarget(e, now));
  }

  async target(webhookId: string): Promise<DeliveryTarget | undefined> {
    const entries = await this.entries();
    let entry = entries.get(webhookId);
    if (entry === undefined) {
      // Not in this instance's copy: it may have been created on another instance since the fill, and
      // answering "deleted" would fail its deliveries, so the store decides.
      const stored = await this.repository.get(webhookId);
      if (stored === undefined) return undefined;
      entry = this.entry(stored);
      entries.set(webhookId, entry);
    }
    return this.toTarget(entry, this.clock.now().getTime());
  }

  async disable(webhookId: string, reason: string): Promise<void> {
    await this.repository.update(webhookId, (w) => (w.status === "disabled" && w.disabledReason === reason ? undefined : { ...w, status: "disabled", disabledReason: reason, updatedAt: this.clock.now().toISOString() }));
    this.forget();
  }

  /** Drops the cache (after a change made on this instance). */
  forget(): void {
    this.cache = undefined;
    this.filling = undefined;
  }

  private toTarget(entry: Entry, now: number): DeliveryTarget {
    const signingSecrets = entry.previous !== undefined && entry.previous.until > now ? [entry.current, entry.previous.secret] : [entry.current];
    return { ...entry.target, signingSecrets };
  }

  private async entries(): Promise<Map<string, Entry>> {
    const now = this.clock.now().getTime();
    if (this.cache !== undefined && this.cache.until > now) return this.cache.entries;
    // Concurrent callers share one fill: a burst of events reads the store once.
    const filling = (this.filling ??= this.fill());
    try {
      const entries = await filling;
      if (this.filling === filling) this.cache = { entries, until: now + this.cacheSeconds * 1000 };
      return entries;
    } finally {
      if (this.filling === filling) this.filling = undefined;
    }
  }

  private async fill(): Promise<Map<string, Entry>> {
    const webhooks = await this.repository.all();
    return new Map(webhooks.map((w) => [w.id, this.entry(w)]));
  }

  private entry(w: StoredWebhook): Entry {
    const entry: Entry = {
      target: { webhookId: w.id, url: w.url, status: w.status, events: w.events },
      current: this.cipher.open(w.secret, w.id),
    };
    if (w.previousSecret !== undefined) entry.previous = { secret: this.cipher.open(w.previousSecret.secret, w.id), until: Date.parse(w.previousSecret.until) };
    return entry;
  }
}
