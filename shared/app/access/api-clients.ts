import { randomBytes } from "node:crypto";
import { z } from "zod";
import { scopes as allScopes, toPublicClient, type ApiClient, type StoredApiClient, apiClientCreateSchema, apiClientPatchSchema } from "../../domain/api-client";
import { notFound } from "../../domain/errors";
import { paginationOf, type Pagination } from "../../domain/pagination";
import { hashSecret, randomToken, verifySecret } from "../../domain/secret-hash";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import type { Clock } from "../../ports/clock";

export type ApiClientCreate = z.infer<typeof apiClientCreateSchema>;
export type ApiClientPatch = z.infer<typeof apiClientPatchSchema>;

/** System Settings › API clients. Secrets are returned once, stored only as hashes. */
export class ApiClients {
  constructor(
    private readonly repository: ApiClientRepository,
    private readonly clock: Clock,
    /** Called after a change so cached copies (the authenticator's) are dropped. */
    private readonly onChange: (clientId: string) => void = () => {},
  ) {}

  async create(input: ApiClientCreate): Promise<ApiClient & { clientSecret: string }> {
    const clientId = `cli_${randomBytes(12).toString("base64url")}`;
    const clientSecret = randomToken("sec_");
    const now = this.clock.now().toISOString();
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
    await this.repository.create(stored);
    return { ...toPublicClient(stored), clientSecret };
  }

  async list(page: number, pageSize: number): Promise<{ items: ApiClient[]; pagination: Pagination }> {
    const result = await this.repository.list(page, pageSize);
    return { items: result.items.map(toPublicClient), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  async get(clientId: string): Promise<ApiClient> {
    return toPublicClient(await this.stored(clientId));
  }

  /** Applies only the fields given, to the client as stored at the time of the write: a concurrent change (a disable) is kept. */
  async update(clientId: string, patch: ApiClientPatch): Promise<ApiClient> {
    const fields = definedOnly(patch);
    const next = await this.repository.update(clientId, (current) => ({ ...current, ...fields, updatedAt: this.clock.now().toISOString() }));
    if (next === undefined) throw notFound(`API client '${clientId}'`);
    this.onChange(clientId);
    return toPublicClient(next);
  }

  /** Replaces only the secret's hash; every other field stays as stored at the time of the write. */
  async rotateSecret(clientId: string): Promise<ApiClient & { clientSecret: string }> {
    await this.stored(clientId);
    const clientSecret = randomToken("sec_");
    const secretHash = await hashSecret(clientSecret);
    const next = await this.repository.update(clientId, (current) => ({ ...current, secretHash, updatedAt: this.clock.now().toISOString() }));
    if (next === undefined) throw notFound(`API client '${clientId}'`);
    this.onChange(clientId);
    return { ...toPublicClient(next), clientSecret };
  }

  /** Makes sure the configured bootstrap client exists, is active, holds every scope and has the configured secret. */
  async ensureBootstrap(clientId: string, clientSecret: string): Promise<void> {
    const existing = await this.repository.get(clientId);
    const now = this.clock.now().toISOString();
    const secretMatches = existing !== undefined && (await verifySecret(clientSecret, existing.secretHash));
    if (existing?.status === "active" && existing.tier === "premium" && secretMatches && allScopes.every((s) => existing.scopes.includes(s))) return;
    await this.repository.put({
      clientId,
      name: existing?.name ?? "Bootstrap administrator",
      scopes: [...allScopes],
      tier: "premium",
      status: "active",
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      secretHash: secretMatches && existing !== undefined ? existing.secretHash : await hashSecret(clientSecret),
    });
    this.onChange(clientId);
  }

  private async stored(clientId: string): Promise<StoredApiClient> {
    const stored = await this.repository.get(clientId);
    if (stored === undefined) throw notFound(`API client '${clientId}'`);
    return stored;
  }
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
