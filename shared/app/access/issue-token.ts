import { scopeSchema, type Scope } from "../../domain/api-client";
import { isWellFormedId } from "../../domain/ids";
import { unstorableIn } from "../../domain/storable";
import { verifySecret } from "../../domain/secret-hash";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import type { TokenService } from "../../ports/token-service";

/** How the client presented its credentials: HTTP Basic, form fields, or not at all. */
export type ClientAuth = "basic" | "form" | "none";

/** An RFC 6749 §5.2 error. */
export class OAuthError extends Error {
  override readonly name = "OAuthError";
  /** For `invalid_client`: how the client tried to authenticate (decides the HTTP challenge). */
  readonly clientAuth: ClientAuth;

  constructor(
    readonly error: "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type" | "invalid_scope",
    readonly description: string,
    options: { clientAuth?: ClientAuth } = {},
  ) {
    super(description);
    this.clientAuth = options.clientAuth ?? "none";
  }

  get status(): number {
    return this.error === "invalid_client" ? 401 : 400;
  }
}

export interface TokenRequest {
  grantType: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  clientAuth: ClientAuth;
  scope: string | undefined;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

export interface IssueTokenDeps {
  clients: ApiClientRepository;
  tokens: TokenService;
  /** Awaited before credentials are checked: makes sure the bootstrap client exists (see Composition). */
  ready?: () => Promise<void>;
}

/** The client credentials grant (RFC 6749 §4.4). */
export class IssueToken {
  constructor(private readonly deps: IssueTokenDeps) {}

  async execute(request: TokenRequest): Promise<TokenResponse> {
    if (request.grantType === undefined) throw new OAuthError("invalid_request", "grant_type is required");
    if (request.grantType !== "client_credentials") {
      throw new OAuthError("unsupported_grant_type", "Only the client_credentials grant is supported");
    }
    const authFailed = (): OAuthError =>
      new OAuthError("invalid_client", "Client authentication failed", { clientAuth: request.clientAuth });
    if (request.clientId === undefined || request.clientSecret === undefined) throw authFailed();
    // No client has an id a store cannot look up (a `/`, a control character): such an id is no client's.
    if (!isWellFormedId(request.clientId) || unstorableIn(request.clientId) !== undefined) throw authFailed();
    await this.deps.ready?.();
    const stored = await this.deps.clients.get(request.clientId);
    const secretOk = await verifySecret(request.clientSecret, stored?.secretHash);
    if (stored === undefined || !secretOk || stored.status !== "active") throw authFailed();
    let granted: Scope[] = stored.scopes;
    if (request.scope !== undefined && request.scope.trim() !== "") {
      const asked = [...new Set(request.scope.trim().split(/ +/))];
      const parsed = scopeSchema.array().safeParse(asked);
      if (!parsed.success || parsed.data.some((s) => !stored.scopes.includes(s))) {
        throw new OAuthError("invalid_scope", "The requested scope is unknown or not granted to this client");
      }
      granted = parsed.data;
    }
    const { accessToken, expiresIn } = await this.deps.tokens.issue(stored.clientId, granted);
    return { access_token: accessToken, token_type: "Bearer", expires_in: expiresIn, scope: granted.join(" ") };
  }
}
