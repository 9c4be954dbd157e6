import { scopes as allScopes } from "../../domain/api-client";
import { hashSecret, verifySecret } from "../../domain/secret-hash";
import type { ApiClientDeps } from "./api-client-deps";

/** Makes sure the configured bootstrap client exists, is active, holds every scope and has the configured secret. */
export async function ensureBootstrapClient(
  deps: ApiClientDeps,
  clientId: string,
  clientSecret: string,
): Promise<void> {
  const existing = await deps.repository.get(clientId);
  const now = deps.clock.now().toISOString();
  const secretMatches = existing !== undefined && (await verifySecret(clientSecret, existing.secretHash));
  if (
    existing?.status === "active" &&
    existing.tier === "premium" &&
    secretMatches &&
    allScopes.every((s) => existing.scopes.includes(s))
  )
    return;
  await deps.repository.put({
    clientId,
    name: existing?.name ?? "Bootstrap administrator",
    scopes: [...allScopes],
    tier: "premium",
    status: "active",
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    secretHash: secretMatches && existing !== undefined ? existing.secretHash : await hashSecret(clientSecret),
  });
  deps.onChange?.(clientId);
}
