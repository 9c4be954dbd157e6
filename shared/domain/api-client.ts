import { z } from "zod";
import { idParam } from "./ids";

export const scopes = ["api.read", "api.write", "api.admin"] as const;
export const scopeSchema = z.enum(scopes);
export type Scope = z.infer<typeof scopeSchema>;

export const tierSchema = z.enum(["standard", "premium"]);
export type Tier = z.infer<typeof tierSchema>;

export const clientStatusSchema = z.enum(["active", "disabled"]);

const clientName = z.string().trim().min(1).max(200);

export const apiClientSchema = z
  .object({
    clientId: z.string(),
    name: z.string(),
    scopes: z.array(scopeSchema),
    tier: tierSchema,
    status: clientStatusSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "ApiClient" });
export type ApiClient = z.infer<typeof apiClientSchema>;

/** The stored form: the public fields plus the secret's hash. Never leaves the service. */
export interface StoredApiClient extends ApiClient {
  secretHash: string;
}

export const apiClientWithSecretSchema = apiClientSchema
  .extend({ clientSecret: z.string().meta({ description: "Shown only in this response" }) })
  .meta({ id: "ApiClientWithSecret" });

const uniqueScopes = z
  .array(scopeSchema)
  .min(1)
  .refine((s) => new Set(s).size === s.length, { message: "scopes must not repeat" });

export const apiClientCreateSchema = z
  .strictObject({
    name: clientName,
    scopes: uniqueScopes,
    tier: tierSchema.default("standard"),
  })
  .meta({ id: "ApiClientCreate" });

export const apiClientPatchSchema = z
  .strictObject({
    name: clientName.optional(),
    scopes: uniqueScopes.optional(),
    tier: tierSchema.optional(),
    status: clientStatusSchema.optional(),
  })
  .refine((p) => Object.keys(p).length > 0, { message: "at least one field is required" })
  .meta({ id: "ApiClientPatch" });

export function toPublicClient(stored: StoredApiClient): ApiClient {
  const { clientId, name, scopes: s, tier, status, createdAt, updatedAt } = stored;
  return { clientId, name, scopes: s, tier, status, createdAt, updatedAt };
}

export const clientIdParams = z.object({ clientId: idParam(100) });
