import type { Container } from "@azure/cosmos";
import type { StoredApiClient } from "../../domain/api-client";
import { AppError } from "../../domain/errors";
import type { Page } from "../../domain/pagination";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import { isConflict, isNotFound, isPreconditionFailed, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";

const KIND = "api-client";

interface ApiClientDoc extends StoredApiClient {
  id: string;
  kind: typeof KIND;
  _etag?: string;
}

/** Enough for every writer of a burst of concurrent changes to get through (each round, one wins). */
const UPDATE_ATTEMPTS = 30;

const toStored = (doc: ApiClientDoc): StoredApiClient => {
  const { id: _id, kind: _kind, ...rest } = stripSystem(doc);
  return rest;
};

const toDoc = (client: StoredApiClient): ApiClientDoc => ({ ...client, id: client.clientId, kind: KIND });

/** API clients in the `settings` container (partition /kind = "api-client"). */
export class CosmosApiClientRepository implements ApiClientRepository {
  constructor(private readonly container: Container) {}

  async get(clientId: string): Promise<StoredApiClient | undefined> {
    const doc = await this.read(clientId);
    return doc === undefined ? undefined : toStored(doc);
  }

  async update(clientId: string, change: (current: StoredApiClient) => StoredApiClient): Promise<StoredApiClient | undefined> {
    for (let attempt = 1; ; attempt++) {
      const doc = await this.read(clientId);
      if (doc === undefined) return undefined;
      const next = change(toStored(doc));
      try {
        await this.container.item(clientId, KIND).replace(toDoc(next), { accessCondition: { type: "IfMatch", condition: doc._etag ?? "" } });
        return next;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (!isPreconditionFailed(error)) throw error;
        if (attempt >= UPDATE_ATTEMPTS) {
          throw new AppError("CONFLICT", `API client '${clientId}' is being changed by other requests at the same time; retry`, { retryable: true });
        }
        // Jitter, so the writers that lost this round do not collide again in lockstep.
        await new Promise((r) => setTimeout(r, Math.random() * 10 * Math.min(attempt, 5)));
      }
    }
  }

  private async read(clientId: string): Promise<ApiClientDoc | undefined> {
    try {
      const { resource } = await this.container.item(clientId, KIND).read<ApiClientDoc>();
      return resource;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async create(client: StoredApiClient): Promise<void> {
    try {
      await this.container.items.create(toDoc(client));
    } catch (error) {
      if (isConflict(error)) throw new AppError("CONFLICT", `API client '${client.clientId}' already exists`);
      throw error;
    }
  }

  async put(client: StoredApiClient): Promise<void> {
    await this.container.items.upsert(toDoc(client));
  }

  async list(page: number, pageSize: number): Promise<Page<StoredApiClient>> {
    const result = await pagedQuery<ApiClientDoc>(this.container, { where: ["c.kind = @kind"], parameters: [{ name: "@kind", value: KIND }], sortField: "id", partitionKey: KIND }, { page, pageSize });
    return { items: result.items.map(toStored), totalItems: result.totalItems };
  }
}
