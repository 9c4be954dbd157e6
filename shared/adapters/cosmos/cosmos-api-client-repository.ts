import type { Container } from "@azure/cosmos";
import type { StoredApiClient } from "../../domain/api-client";
import { AppError } from "../../domain/errors";
import type { Page } from "../../domain/pagination";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import { isConflict, isNotFound, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";

const KIND = "api-client";

interface ApiClientDoc extends StoredApiClient {
  id: string;
  kind: typeof KIND;
}

const toStored = (doc: ApiClientDoc): StoredApiClient => {
  const { id: _id, kind: _kind, ...rest } = stripSystem(doc);
  return rest;
};

const toDoc = (client: StoredApiClient): ApiClientDoc => ({ ...client, id: client.clientId, kind: KIND });

/** API clients in the `settings` container (partition /kind = "api-client"). */
export class CosmosApiClientRepository implements ApiClientRepository {
  constructor(private readonly container: Container) {}

  async get(clientId: string): Promise<StoredApiClient | undefined> {
    try {
      const { resource } = await this.container.item(clientId, KIND).read<ApiClientDoc>();
      return resource === undefined ? undefined : toStored(resource);
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
