import { toPublicClient, type ApiClient } from "../../domain/api-client";
import { notFound } from "../../domain/errors";
import { hashSecret, randomToken } from "../../domain/secret-hash";
import { storedApiClient, type ApiClientDeps } from "./api-client-deps";

/** Gives an API client a new secret, returned once. */
export class RotateApiClientSecret {
  constructor(private readonly deps: ApiClientDeps) {}

  /** Replaces only the secret's hash; every other field stays as stored at the time of the write. */
  async execute(clientId: string): Promise<ApiClient & { clientSecret: string }> {
    const { repository, clock } = this.deps;
    await storedApiClient(repository, clientId);
    const clientSecret = randomToken("sec_");
    const secretHash = await hashSecret(clientSecret);
    const next = await repository.update(clientId, (current) => ({
      ...current,
      secretHash,
      updatedAt: clock.now().toISOString(),
    }));
    if (next === undefined) throw notFound(`API client '${clientId}'`);
    this.deps.onChange?.(clientId);
    return { ...toPublicClient(next), clientSecret };
  }
}
