import { randomBytes } from "node:crypto";
import { AppError, notFound } from "../../domain/errors";
import { paginationOf, type Pagination } from "../../domain/pagination";
import { PREVIOUS_SECRET_HOURS, toPublicWebhook, type StoredWebhook, type Webhook, type WebhookCreate, type WebhookPatch } from "../../domain/webhook";
import { generateWebhookSecret } from "../../domain/webhook-secret";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import { newMessageId, signWebhook } from "../../domain/webhook-signature";
import type { Clock } from "../../ports/clock";
import type { WebhookSender } from "../../ports/webhook-delivery";
import type { WebhookRepository } from "../../ports/webhook-repository";

export type WebhookWithSecret = Webhook & { secret: string };

/**
 * System Settings › Webhooks. A URL is saved only after it accepted a signed `webhook.test` event
 * (the sender's SSRF guard refuses it first when it may not be reached); secrets are sealed at rest
 * and shown only when created or rotated.
 */
export class Webhooks {
  constructor(
    private readonly repository: WebhookRepository,
    private readonly sender: WebhookSender,
    private readonly cipher: WebhookSecretCipher,
    private readonly clock: Clock,
    /** Called after a change so cached copies (the directory's) are dropped. */
    private readonly onChange: (id: string) => void = () => {},
  ) {}

  async create(input: WebhookCreate): Promise<WebhookWithSecret> {
    // The id exists before the test event, which names it.
    const id = `wh_${randomBytes(12).toString("base64url")}`;
    const secret = input.secret ?? generateWebhookSecret();
    await this.verify(id, input.url, [secret]);
    const now = this.clock.now().toISOString();
    const stored: StoredWebhook = {
      id,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      status: "enabled",
      createdAt: now,
      updatedAt: now,
      secret: this.cipher.seal(secret, id),
    };
    await this.repository.create(stored);
    this.onChange(id);
    return { ...toPublicWebhook(stored), secret };
  }

  async list(page: number, pageSize: number): Promise<{ items: Webhook[]; pagination: Pagination }> {
    const result = await this.repository.list(page, pageSize);
    return { items: result.items.map(toPublicWebhook), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  async get(id: string): Promise<Webhook> {
    return toPublicWebhook(await this.stored(id));
  }

  /** A new URL is verified first (with the secrets signing now); only the fields given change. */
  async update(id: string, patch: WebhookPatch): Promise<Webhook> {
    const current = await this.stored(id);
    if (patch.url !== undefined && patch.url !== current.url) await this.verify(id, patch.url, this.signingSecrets(current));
    const next = await this.repository.update(id, (stored) => {
      const changed: StoredWebhook = { ...stored, updatedAt: this.clock.now().toISOString() };
      if (patch.url !== undefined) changed.url = patch.url;
      if (patch.events !== undefined) changed.events = patch.events;
      if (patch.description !== undefined) changed.description = patch.description;
      if (patch.status !== undefined) changed.status = patch.status;
      if (patch.status === "enabled") delete changed.disabledReason;
      return changed;
    });
    if (next === undefined) throw notFound(`Webhook '${id}'`);
    this.onChange(id);
    return toPublicWebhook(next);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.repository.delete(id))) throw notFound(`Webhook '${id}'`);
    this.onChange(id);
  }

  /** A new secret; the one it replaces keeps signing (a second signature) for 24 h. */
  async rotateSecret(id: string): Promise<WebhookWithSecret> {
    const secret = generateWebhookSecret();
    const sealed = this.cipher.seal(secret, id);
    const next = await this.repository.update(id, (stored) => {
      const now = this.clock.now();
      const until = new Date(now.getTime() + PREVIOUS_SECRET_HOURS * 3600_000).toISOString();
      return { ...stored, secret: sealed, previousSecret: { secret: stored.secret, until }, updatedAt: now.toISOString() };
    });
    if (next === undefined) throw notFound(`Webhook '${id}'`);
    this.onChange(id);
    return { ...toPublicWebhook(next), secret };
  }

  /** Decrypted secrets that sign now: the current one, and the previous one until its 24 h are over. */
  signingSecrets(stored: StoredWebhook): string[] {
    const secrets = [this.cipher.open(stored.secret, stored.id)];
    if (stored.previousSecret !== undefined && stored.previousSecret.until > this.clock.now().toISOString()) {
      secrets.push(this.cipher.open(stored.previousSecret.secret, stored.id));
    }
    return secrets;
  }

  /** Sends the signed `webhook.test` event; anything but a 2xx is a 422 on `url` saying what happened. */
  private async verify(webhookId: string, url: string, secrets: readonly string[]): Promise<void> {
    const id = newMessageId();
    const now = this.clock.now();
    const body = JSON.stringify({ id, event: "webhook.test", timestamp: now.toISOString(), data: { webhookId } });
    const result = await this.sender.post(url, signWebhook(id, now, body, secrets), body);
    if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300) return;
    const what = result.error ?? `the endpoint answered ${result.statusCode ?? "nothing"}`;
    if (result.refused === true) throw new AppError("VALIDATION_ERROR", "The webhook URL may not be used", { details: [{ field: "url", message: what }] });
    throw new AppError("VALIDATION_ERROR", "The webhook URL did not accept the webhook.test event", {
      details: [{ field: "url", message: `${what}; the URL must answer the signed webhook.test event with a 2xx within 15 s` }],
    });
  }

  private async stored(id: string): Promise<StoredWebhook> {
    const stored = await this.repository.get(id);
    if (stored === undefined) throw notFound(`Webhook '${id}'`);
    return stored;
  }
}
