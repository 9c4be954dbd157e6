import { CosmosApiClientRepository } from "../adapters/cosmos/cosmos-api-client-repository";
import { CosmosCounterStore } from "../adapters/cosmos/cosmos-counter-store";
import { CosmosIdempotencyStore } from "../adapters/cosmos/cosmos-idempotency-store";
import { JoseTokenService } from "../adapters/jwt/jose-token-service";
import { ApiClients } from "../app/access/api-clients";
import { Authenticator } from "../app/access/authenticator";
import { Idempotency } from "../app/access/idempotency";
import { IssueToken } from "../app/access/issue-token";
import { RateLimiter } from "../app/access/rate-limiter";
import type { CoreServices } from "./core";
import { lazy, onceUntilSuccess } from "./lazy";

/** Who may call: API clients, tokens, authentication, rate limits and idempotency keys. */
export class AccessServices {
  constructor(private readonly core: CoreServices) {}

  readonly apiClientRepository = lazy(() => new CosmosApiClientRepository(this.core.cosmos().container("settings")));
  readonly tokenService = lazy(() => {
    const c = this.core.config;
    return new JoseTokenService(
      {
        issuer: c.JWT_ISSUER,
        audience: c.JWT_AUDIENCE,
        current: { kid: c.JWT_KEY_ID, secret: Buffer.from(c.JWT_SIGNING_KEY, "base64") },
        ...(c.JWT_PREVIOUS_SIGNING_KEY !== undefined && c.JWT_PREVIOUS_KEY_ID !== undefined
          ? { previous: { kid: c.JWT_PREVIOUS_KEY_ID, secret: Buffer.from(c.JWT_PREVIOUS_SIGNING_KEY, "base64") } }
          : {}),
      },
      () => Math.floor(this.core.clock.now().getTime() / 1000),
    );
  });
  readonly authenticator = lazy(
    () => new Authenticator(this.tokenService(), this.apiClientRepository(), this.core.clock, this.core.config.AUTH_CLIENT_CACHE_SECONDS),
  );
  readonly rateLimiter = lazy(() => {
    const c = this.core.config;
    return new RateLimiter(
      {
        standard: { perMinute: c.RATE_LIMIT_STANDARD_PER_MINUTE, perDay: c.RATE_LIMIT_STANDARD_PER_DAY },
        premium: { perMinute: c.RATE_LIMIT_PREMIUM_PER_MINUTE, perDay: c.RATE_LIMIT_PREMIUM_PER_DAY },
        anonymous: { perMinute: c.RATE_LIMIT_ANONYMOUS_PER_MINUTE, perDay: c.RATE_LIMIT_ANONYMOUS_PER_DAY },
      },
      new CosmosCounterStore(this.core.cosmos().container("counters")),
      this.core.clock,
    );
  });
  readonly idempotency = lazy(() => new Idempotency(new CosmosIdempotencyStore(this.core.cosmos().container("counters")), this.core.clock));
  /**
   * Ensures the configured bootstrap client (BOOTSTRAP_CLIENT_ID/SECRET, a Key Vault reference in Azure)
   * once per instance, lazily before the first token request: the same path in Azure and in the local
   * runtime, with no start-up hook that could fail the whole app or be skipped by a host.
   */
  readonly ensureBootstrap = lazy(() =>
    onceUntilSuccess(async () => {
      const { BOOTSTRAP_CLIENT_ID: id, BOOTSTRAP_CLIENT_SECRET: secret } = this.core.config;
      if (id !== undefined && secret !== undefined) await this.apiClients().ensureBootstrap(id, secret);
    }),
  );
  readonly issueToken = lazy(() => new IssueToken(this.apiClientRepository(), this.tokenService(), this.ensureBootstrap()));
  readonly apiClients = lazy(() => new ApiClients(this.apiClientRepository(), this.core.clock, (id) => this.authenticator().forget(id)));
}
