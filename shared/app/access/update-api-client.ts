import type { z } from "zod";
import { toPublicClient, type ApiClient, type apiClientPatchSchema } from "../../domain/api-client";
import { notFound } from "../../domain/errors";
import type { ApiClientDeps } from "./api-client-deps";

export type ApiClientPatch = z.infer<typeof apiClientPatchSchema>;

/** Changes an API client's name, scopes, tier or status. */
export class UpdateApiClient {
  constructor(private readonly deps: ApiClientDeps) {}

  /** Applies only the fields given, to the client as stored at the time of the write: a concurrent change (a disable) is kept. */
  async execute({ clientId, patch }: { clientId: string; patch: ApiClientPatch }): Promise<ApiClient> {
    const fields = definedOnly(patch);
    const next = await this.deps.repository.update(clientId, (current) => ({
      ...current,
      ...fields,
      updatedAt: this.deps.clock.now().toISOString(),
    }));
    if (next === undefined) throw notFound(`API client '${clientId}'`);
    this.deps.onChange?.(clientId);
    return toPublicClient(next);
  }
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
