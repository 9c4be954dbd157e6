import type { StoredApiClient } from "../domain/api-client";
import type { CursorPage, PageRequest } from "../domain/page-request";
import type { AuditNote } from "../domain/settings-audit";

/** Stored API clients (System Settings). */
export interface ApiClientRepository {
  get(clientId: string): Promise<StoredApiClient | undefined>;
  /** Throws CONFLICT when the id exists. */
  create(client: StoredApiClient): Promise<void>;
  /** Creates or overwrites (the bootstrap client only: it is meant to win). */
  put(client: StoredApiClient): Promise<void>;
  /**
   * Applies `change` to the stored client only if nobody wrote it since it was read (optimistic
   * concurrency), re-reading and re-applying on a race, so a concurrent change is never overwritten.
   * Undefined when the client does not exist; CONFLICT (retryable) if the races never end. `note` tells
   * the settings audit trail what the stored form cannot show (a rotation).
   */
  update(
    clientId: string,
    change: (current: StoredApiClient) => StoredApiClient,
    note?: AuditNote,
  ): Promise<StoredApiClient | undefined>;
  list(request: PageRequest): Promise<CursorPage<StoredApiClient>>;
}
