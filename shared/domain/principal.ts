import type { Scope, Tier } from "./api-client";

/** The caller of an API request, established from its access token. */
export interface Principal {
  clientId: string;
  scopes: readonly Scope[];
  tier: Tier;
}
