import type { CursorPage, PageRequest } from "../domain/page-request";
import type { AuditNote } from "../domain/settings-audit";

/** Stored System Settings resources of one kind (webhooks, feeds): few, read by id, changed conditionally. */
export interface SettingsRepository<T extends { id: string }> {
  get(id: string): Promise<T | undefined>;
  /** Throws CONFLICT when the id exists. */
  create(item: T): Promise<void>;
  /**
   * Applies `change` to the item as stored, conditionally on its version (re-read and re-applied
   * after a lost race). `change` may return undefined to leave it. Undefined when it does not exist.
   * `note` tells the settings audit trail what the stored form cannot show (a rotation).
   */
  update(id: string, change: (current: T) => T | undefined, note?: AuditNote): Promise<T | undefined>;
  /** False when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** By id, a page number or a cursor at a time, as every list; `where` keeps the items whose fields equal its values. */
  list(request: PageRequest, where?: Readonly<Record<string, string>>): Promise<CursorPage<T>>;
  /** Every item of the kind (a cache fill; there are tens, not millions). */
  all(): Promise<T[]>;
}
