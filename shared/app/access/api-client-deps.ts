import type { StoredApiClient } from "../../domain/api-client";
import { notFound } from "../../domain/errors";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import type { Clock } from "../../ports/clock";

/** What the API client use cases (System Settings › API clients) need. */
export interface ApiClientDeps {
  repository: ApiClientRepository;
  clock: Clock;
  /** Called after a change so cached copies (the authenticator's) are dropped. */
  onChange?: (clientId: string) => void;
}

/** The stored client, or NOT_FOUND. */
export async function storedApiClient(repository: ApiClientRepository, clientId: string): Promise<StoredApiClient> {
  const stored = await repository.get(clientId);
  if (stored === undefined) throw notFound(`API client '${clientId}'`);
  return stored;
}
