import { CosmosApiClientRepository } from "../adapters/cosmos/cosmos-api-client-repository";
import { CosmosCounterStore } from "../adapters/cosmos/cosmos-counter-store";
import { CosmosIdempotencyStore } from "../adapters/cosmos/cosmos-idempotency-store";
import { JoseTokenService } from "../adapters/jwt/jose-token-service";
import type { ApiClientDeps } from "../app/access/api-client-deps";
import { Authenticator } from "../app/access/authenticator";
import { ensureBootstrapClient } from "../app/access/bootstrap-client";
import { CreateApiClient } from "../app/access/create-api-client";
import { GetApiClient } from "../app/access/get-api-client";
import { Idempotency } from "../app/access/idempotency";
import { IssueToken } from "../app/access/issue-token";
import { ListApiClients } from "../app/access/list-api-clients";
import { RateLimiter } from "../app/access/rate-limiter";
import { RotateApiClientSecret } from "../app/access/rotate-api-client-secret";
import { UpdateApiClient } from "../app/access/update-api-client";
import { apiClientAudit } from "../domain/settings-audit-subjects";
import type { CoreServices } from "./core";
import { lazy, onceUntilSuccess } from "./lazy";

/** Who may call: API clients, tokens, authentication, rate limits and idempotency keys. */
export class AccessServices {
  constructor(private readonly core: CoreServices) {}

  readonly apiClientRepository = lazy(
    () =>
      new CosmosApiClientRepository(this.core.cosmos().container("settings"), {
        writer: this.core.settingsAudit(),
        subject: apiClientAudit,
      }),
  );
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
    () =>
      new Authenticator(
        this.tokenService(),
        this.apiClientRepository(),
        this.core.clock,
        this.core.config.AUTH_CLIENT_CACHE_SECONDS,
      ),
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
  readonly idempotency = lazy(
    () => new Idempotency(new CosmosIdempotencyStore(this.core.cosmos().container("counters")), this.core.clock),
  );
  /** What the API client use cases share; a change drops the authenticator's copy of the client. */
  readonly apiClientDeps = lazy<ApiClientDeps>(() => ({
    repository: this.apiClientRepository(),
    clock: this.core.clock,
    onChange: (id) => this.authenticator().forget(id),
  }));
  /**
   * Ensures the configured bootstrap client (BOOTSTRAP_CLIENT_ID/SECRET, a Key Vault reference in Azure)
   * once per instance, lazily before the first token request: the same path in Azure and in the local
   * runtime, with no start-up hook that could fail the whole app or be skipped by a host.
   */
  readonly ensureBootstrap = lazy(() =>
    onceUntilSuccess(async () => {
      const { BOOTSTRAP_CLIENT_ID: id, BOOTSTRAP_CLIENT_SECRET: secret } = this.core.config;
      if (id !== undefined && secret !== undefined) await ensureBootstrapClient(this.apiClientDeps(), id, secret);
    }),
  );
  readonly issueToken = lazy(
    () =>
      new IssueToken({
        clients: this.apiClientRepository(),
        tokens: this.tokenService(),
        ready: this.ensureBootstrap(),
      }),
  );
  readonly createApiClient = lazy(() => new CreateApiClient(this.apiClientDeps()));
  readonly getApiClient = lazy(() => new GetApiClient(this.apiClientDeps()));
  readonly listApiClients = lazy(() => new ListApiClients(this.apiClientDeps()));
  readonly updateApiClient = lazy(() => new UpdateApiClient(this.apiClientDeps()));
  readonly rotateApiClientSecret = lazy(() => new RotateApiClientSecret(this.apiClientDeps()));
}
