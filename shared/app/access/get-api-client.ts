import { toPublicClient, type ApiClient } from "../../domain/api-client";
import { storedApiClient, type ApiClientDeps } from "./api-client-deps";

/** One API client, without its secret's hash. */
export class GetApiClient {
  constructor(private readonly deps: ApiClientDeps) {}

  async execute(clientId: string): Promise<ApiClient> {
    return toPublicClient(await storedApiClient(this.deps.repository, clientId));
  }
}
