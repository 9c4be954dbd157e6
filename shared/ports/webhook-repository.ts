import type { Page } from "../domain/pagination";
import type { StoredWebhook } from "../domain/webhook";

/** Stored webhooks (System Settings → Webhooks). */
export interface WebhookRepository {
  get(id: string): Promise<StoredWebhook | undefined>;
  /** Throws CONFLICT when the id exists. */
  create(webhook: StoredWebhook): Promise<void>;
  /**
   * Applies `change` to the webhook as stored, conditionally on its version (re-read and re-applied
   * after a lost race). `change` may return undefined to leave it. Undefined when it does not exist.
   */
  update(id: string, change: (current: StoredWebhook) => StoredWebhook | undefined): Promise<StoredWebhook | undefined>;
  /** False when it did not exist. */
  delete(id: string): Promise<boolean>;
  list(page: number, pageSize: number): Promise<Page<StoredWebhook>>;
  /** Every webhook (the directory's cache fill; there are tens, not millions). */
  all(): Promise<StoredWebhook[]>;
}
