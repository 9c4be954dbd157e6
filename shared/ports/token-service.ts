import type { Scope } from "../domain/api-client";

export interface AccessTokenClaims {
  clientId: string;
  scopes: Scope[];
  issuedAt: number;
  /** Epoch seconds. */
  expiresAt: number;
}

/** Issues and verifies signed access tokens. `verify` throws UNAUTHORIZED on any defect. */
export interface TokenService {
  issue(clientId: string, scopes: Scope[]): Promise<{ accessToken: string; expiresIn: number }>;
  verify(token: string): Promise<AccessTokenClaims>;
}
