import type { StoredFeed } from "../domain/feed";
import type { Page } from "../domain/pagination";

/** Stored feeds (System Settings → Feeds). */
export interface FeedRepository {
  get(id: string): Promise<StoredFeed | undefined>;
  /** Throws CONFLICT when the id exists. */
  create(feed: StoredFeed): Promise<void>;
  /**
   * Applies `change` to the feed as stored, conditionally on its version (re-read and re-applied
   * after a lost race). `change` may return undefined to leave it. Undefined when it does not exist.
   */
  update(id: string, change: (current: StoredFeed) => StoredFeed | undefined): Promise<StoredFeed | undefined>;
  /** False when it did not exist. */
  delete(id: string): Promise<boolean>;
  list(page: number, pageSize: number): Promise<Page<StoredFeed>>;
}
