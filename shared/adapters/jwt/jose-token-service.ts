import { createSecretKey, type KeyObject } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { scopeSchema, type Scope } from "../../domain/api-client";
import { AppError } from "../../domain/errors";
import type { AccessTokenClaims, TokenService } from "../../ports/token-service";

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
const ALGORITHM = "HS256";

export interface JwtKey {
  kid: string;
  secret: Uint8Array;
}

export interface JwtSettings {
  issuer: string;
  audience: string;
  /** Signs new tokens. */
  current: JwtKey;
  /** Still verifies tokens signed before a key rotation. */
  previous?: JwtKey;
}

const unauthorized = (message: string, cause?: unknown): AppError =>
  new AppError("UNAUTHORIZED", message, {
    cause,
    headers: { "WWW-Authenticate": `Bearer error="invalid_token", error_description="${message}"` },
  });

/** HS256 access tokens signed with a key from config, so every instance verifies every other's tokens. */
export class JoseTokenService implements TokenService {
  // KeyObjects, not raw bytes: jose would otherwise import the key again on every call.
  private readonly keys: Map<string, KeyObject>;
  private readonly signingKey: KeyObject;

  constructor(
    private readonly settings: JwtSettings,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.signingKey = createSecretKey(settings.current.secret);
    this.keys = new Map([[settings.current.kid, this.signingKey]]);
    if (settings.previous !== undefined)
      this.keys.set(settings.previous.kid, createSecretKey(settings.previous.secret));
  }

  async issue(clientId: string, scopes: Scope[]): Promise<{ accessToken: string; expiresIn: number }> {
    const now = this.nowSeconds();
    const accessToken = await new SignJWT({ scope: scopes.join(" ") })
      .setProtectedHeader({ alg: ALGORITHM, kid: this.settings.current.kid, typ: "JWT" })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_LIFETIME_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(this.signingKey);
    return { accessToken, expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS };
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const key = header.kid === undefined ? undefined : this.keys.get(header.kid);
          if (key === undefined) throw unauthorized("The access token was signed with an unknown key");
          return key;
        },
        {
          algorithms: [ALGORITHM],
          issuer: this.settings.issuer,
          audience: this.settings.audience,
          requiredClaims: ["exp", "iat", "sub"],
          currentDate: new Date(this.nowSeconds() * 1000),
        },
      ));
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw unauthorized("The access token has expired", error);
      if (error instanceof joseErrors.JOSEError) throw unauthorized("The access token is invalid", error);
      throw error;
    }
    const scopes = typeof payload.scope === "string" ? payload.scope.split(" ") : [];
    const parsed = scopeSchema.array().safeParse(scopes);
    // A validly signed token may still carry claims of the wrong type (a numeric or object `sub`);
    // only a non-empty string names a client.
    if (
      !parsed.success ||
      typeof payload.sub !== "string" ||
      payload.sub === "" ||
      typeof payload.iat !== "number" ||
      typeof payload.exp !== "number"
    ) {
      throw unauthorized("The access token is invalid");
    }
    return { clientId: payload.sub, scopes: parsed.data, issuedAt: payload.iat, expiresAt: payload.exp };
  }
}
