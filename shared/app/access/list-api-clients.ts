import { toPublicClient, type ApiClient } from "../../domain/api-client";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { ApiClientDeps } from "./api-client-deps";

/** A page of API clients, without their secrets' hashes. */
export class ListApiClients {
  constructor(private readonly deps: ApiClientDeps) {}

  async execute(page: PageRequest): Promise<CursorPage<ApiClient>> {
    const result = await this.deps.repository.list(page);
    return { ...result, items: result.items.map(toPublicClient) };
  }
}
