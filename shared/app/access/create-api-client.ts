import { randomBytes } from "node:crypto";
import type { z } from "zod";
import {
  toPublicClient,
  type ApiClient,
  type StoredApiClient,
  type apiClientCreateSchema,
} from "../../domain/api-client";
import { hashSecret, randomToken } from "../../domain/secret-hash";
import type { ApiClientDeps } from "./api-client-deps";

export type ApiClientCreate = z.infer<typeof apiClientCreateSchema>;

/** Creates an API client. Its secret is returned once, stored only as a hash. */
export class CreateApiClient {
  constructor(private readonly deps: ApiClientDeps) {}

  async execute(input: ApiClientCreate): Promise<ApiClient & { clientSecret: string }> {
    const clientId = `cli_${randomBytes(12).toString("base64url")}`;
    const clientSecret = randomToken("sec_");
    const now = this.deps.clock.now().toISOString();
    const stored: StoredApiClient = {
      clientId,
      name: input.name,
      scopes: input.scopes,
      tier: input.tier,
      status: "active",
      createdAt: now,
      updatedAt: now,
      secretHash: await hashSecret(clientSecret),
    };
    await this.deps.repository.create(stored);
    return { ...toPublicClient(stored), clientSecret };
  }
}
