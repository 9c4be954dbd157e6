import { LRUCache } from "lru-cache";
import { toPublicClient, type ApiClient } from "../../domain/api-client";
import { AppError } from "../../domain/errors";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import type { Clock } from "../../ports/clock";
import type { AccessTokenClaims, TokenService } from "../../ports/token-service";
import type { Principal } from "../../domain/principal";

const invalid = (message: string): AppError =>
  new AppError("UNAUTHORIZED", message, {
    headers: { "WWW-Authenticate": `Bearer error="invalid_token", error_description="${message}"` },
  });

/** Entries per cache: beyond it the least recently used one goes, not the whole cache. */
const CACHE_ENTRIES = 10_000;

/**
 * Resolves a bearer token to its client. The client is re-read at most every `cacheSeconds`, so a
 * disabled client's live tokens stop working within that time on every instance (at once on this one).
 */
export class Authenticator {
  /** Clients by id as last read (undefined: not found), each for `cacheSeconds`. */
  private readonly clientCache: LRUCache<string, { client: ApiClient | undefined }>;
  /** Tokens already verified, until they expire: a signature is checked once per token, not per request. */
  private readonly verified: LRUCache<string, AccessTokenClaims>;

  constructor(
    private readonly tokens: TokenService,
    private readonly clients: ApiClientRepository,
    private readonly clock: Clock,
    private readonly cacheSeconds: number,
  ) {
    // Entries age on the service's clock; read afresh on every lookup (no resolution timer).
    const cacheOptions = { max: CACHE_ENTRIES, perf: { now: () => this.clock.now().getTime() }, ttlResolution: 0 };
    this.clientCache = new LRUCache(cacheOptions);
    this.verified = new LRUCache(cacheOptions);
  }

  async authenticate(authorization: string | null): Promise<Principal> {
    if (authorization === null || authorization.trim() === "") {
      throw new AppError("UNAUTHORIZED", "An access token is required", { headers: { "WWW-Authenticate": "Bearer" } });
    }
    const match = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/i.exec(authorization.trim());
    if (match?.[1] === undefined) throw invalid("The Authorization header must be 'Bearer <token>'");
    const claims = await this.verify(match[1]);
    const client = await this.client(claims.clientId);
    if (client === undefined || client.status !== "active") throw invalid("The API client is disabled or unknown");
    // A scope removed from the client since the token was issued is no longer granted.
    const scopes = claims.scopes.filter((s) => client.scopes.includes(s));
    return { clientId: client.clientId, scopes, tier: client.tier };
  }

  private async verify(token: string): Promise<AccessTokenClaims> {
    const hit = this.verified.get(token);
    if (hit !== undefined) return hit;
    const claims = await this.tokens.verify(token);
    cacheUntil(this.verified, token, claims, this.clock.now().getTime(), claims.expiresAt * 1000);
    return claims;
  }

  /** Drops the cached copy after a change on this instance. */
  forget(clientId: string): void {
    this.clientCache.delete(clientId);
  }

  private async client(clientId: string): Promise<ApiClient | undefined> {
    const hit = this.clientCache.get(clientId);
    if (hit !== undefined) return hit.client;
    const readAt = this.clock.now().getTime();
    const stored = await this.clients.get(clientId);
    const client = stored === undefined ? undefined : toPublicClient(stored);
    if (this.cacheSeconds > 0)
      cacheUntil(this.clientCache, clientId, { client }, readAt, readAt + this.cacheSeconds * 1000);
    return client;
  }
}

/**
 * Caches `value` from `start` while the time is before `until`: lru-cache keeps an entry while its age
 * is at most its ttl, and a ttl of 0 would keep it forever, so an entry with under 2 ms to live is not cached.
 */
function cacheUntil<V extends object>(
  cache: LRUCache<string, V>,
  key: string,
  value: V,
  start: number,
  until: number,
): void {
  const ttl = until - start - 1;
  if (ttl > 0) cache.set(key, value, { start, ttl });
}

export function requireScope(principal: Principal, scope: Principal["scopes"][number]): void {
  if (!principal.scopes.includes(scope)) {
    throw new AppError("FORBIDDEN", `This operation needs the '${scope}' scope`);
  }
}
