import type { StoredApiClient } from "../domain/api-client";
import type { Page } from "../domain/pagination";

/** Stored API clients (System Settings). */
export interface ApiClientRepository {
  get(clientId: string): Promise<StoredApiClient | undefined>;
  /** Throws CONFLICT when the id exists. */
  create(client: StoredApiClient): Promise<void>;
  /** Creates or overwrites. */
  put(client: StoredApiClient): Promise<void>;
  list(page: number, pageSize: number): Promise<Page<StoredApiClient>>;
}
