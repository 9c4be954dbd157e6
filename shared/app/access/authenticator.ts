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

/**
 * Resolves a bearer token to its client. The client is re-read at most every `cacheSeconds`, so a
 * disabled client's live tokens stop working within that time on every instance (at once on this one).
 */
export class Authenticator {
  private readonly cache = new Map<string, { client: ApiClient | undefined; until: number }>();
  /** Tokens already verified, until they expire: a signature is checked once per token, not per request. */
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly tokens: TokenService,
    private readonly clients: ApiClientRepository,
    private readonly clock: Clock,
    private readonly cacheSeconds: number,
  ) {}

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
    const nowSeconds = this.clock.now().getTime() / 1000;
    const hit = this.verified.get(token);
    if (hit !== undefined && hit.expiresAt > nowSeconds) return hit;
    this.verified.delete(token);
    const claims = await this.tokens.verify(token);
    if (this.verified.size >= 10_000) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  /** Drops the cached copy after a change on this instance. */
  forget(clientId: string): void {
    this.cache.delete(clientId);
  }

  private async client(clientId: string): Promise<ApiClient | undefined> {
    const now = this.clock.now().getTime();
    const hit = this.cache.get(clientId);
    if (hit !== undefined && hit.until > now) return hit.client;
    const stored = await this.clients.get(clientId);
    const client = stored === undefined ? undefined : toPublicClient(stored);
    if (this.cacheSeconds > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(clientId, { client, until: now + this.cacheSeconds * 1000 });
    }
    return client;
  }
}

export function requireScope(principal: Principal, scope: Principal["scopes"][number]): void {
  if (!principal.scopes.includes(scope)) {
    throw new AppError("FORBIDDEN", `This operation needs the '${scope}' scope`);
  }
}
