/**
 * The replica's settings resources (API.md, "Read-only SQL replica"): the connection details with the
 * replica's state, and the read-only logins an administrator hands out.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { AppError } from "../errors";
import { idParam } from "../ids";

export const organisationPlanSchema = z.enum(["standard", "premium", "enterprise"]);
export type OrganisationPlan = z.infer<typeof organisationPlanSchema>;

/** Every replica route answers this on another plan: the replica is an Enterprise feature. */
export function requireEnterprise(plan: OrganisationPlan): void {
  if (plan !== "enterprise") {
    throw new AppError(
      "FORBIDDEN",
      `The read-only SQL replica is an Enterprise plan feature; this organisation is on the ${plan} plan`,
    );
  }
}

export const replicaStatusSchema = z.enum(["current", "catching-up", "backfilling", "unavailable"]).meta({
  description:
    "current: every stored change is in the replica; catching-up: newer changes are on their way; backfilling: stored documents were never projected yet (the replica was just turned on, or a burst of new records); unavailable: the replica database cannot be reached",
});

export const replicaSettingsSchema = z
  .object({
    engine: z.enum(["sqlserver", "postgres"]).meta({
      description: "sqlserver in Azure (Azure SQL Database, TDS); postgres locally (the PostgreSQL protocol)",
    }),
    host: z
      .string()
      .meta({ description: "Server to connect to (in Azure the logical server's name or its DNS alias)" }),
    port: z.number().int(),
    database: z.string(),
    schema: z.string().meta({ description: "The schema holding every table (analytics)" }),
    authentication: z
      .array(z.enum(["entra", "sql-login", "password"]))
      .meta({ description: "entra and sql-login in Azure; password locally" }),
    status: replicaStatusSchema,
    lagSeconds: z.number().nullable().meta({
      description:
        "0 when current; else the age of the newest change applied from a container that is behind. Null when unavailable",
    }),
    lastProjectedAt: z.iso.datetime().nullable().meta({ description: "When a change was last applied" }),
    tables: z.array(z.object({ name: z.string(), rows: z.number().int() })),
    documents: z.object({ stored: z.number().int(), projected: z.number().int() }).nullable().meta({
      description:
        "Progress: stored documents the replica shows, and how many of them it has applied (a first backfill counts up to stored). Null when unavailable",
    }),
  })
  .meta({ id: "ReplicaSettings" });
export type ReplicaSettings = z.infer<typeof replicaSettingsSchema>;

/** What one login may take of the replica: enforced by the database and a watchdog, so that it cannot lift them. */
export const DEFAULT_CONNECTION_LIMIT = 10;
export const DEFAULT_STATEMENT_TIMEOUT_SECONDS = 60;
export const MAX_CONNECTION_LIMIT = 100;
export const MAX_STATEMENT_TIMEOUT_SECONDS = 3600;

const connectionLimit = z
  .number()
  .int()
  .min(1)
  .max(MAX_CONNECTION_LIMIT)
  .meta({
    description: `Sessions the login may have open at once (1–${MAX_CONNECTION_LIMIT}); one more is refused, so that one login cannot take every connection`,
  });
const statementTimeoutSeconds = z
  .number()
  .int()
  .min(1)
  .max(MAX_STATEMENT_TIMEOUT_SECONDS)
  .meta({
    description: `Seconds one statement may run (1–${MAX_STATEMENT_TIMEOUT_SECONDS}), and a transaction may stay open idle; a statement past it is stopped, even one that set its own statement_timeout`,
  });

export interface ReplicaLoginLimits {
  connectionLimit: number;
  statementTimeoutSeconds: number;
}

export const defaultLimits: ReplicaLoginLimits = {
  connectionLimit: DEFAULT_CONNECTION_LIMIT,
  statementTimeoutSeconds: DEFAULT_STATEMENT_TIMEOUT_SECONDS,
};

export const replicaLoginCreateSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({ description: "Who or what the login is for (e.g. Power BI finance)" }),
    connectionLimit: connectionLimit.default(DEFAULT_CONNECTION_LIMIT),
    statementTimeoutSeconds: statementTimeoutSeconds.default(DEFAULT_STATEMENT_TIMEOUT_SECONDS),
  })
  .meta({ id: "ReplicaLoginCreate" });
export type ReplicaLoginCreate = z.infer<typeof replicaLoginCreateSchema>;

export const replicaLoginPatchSchema = z
  .strictObject({
    connectionLimit: connectionLimit.optional(),
    statementTimeoutSeconds: statementTimeoutSeconds.optional(),
  })
  .refine((p) => p.connectionLimit !== undefined || p.statementTimeoutSeconds !== undefined, {
    message: "Give connectionLimit, statementTimeoutSeconds or both",
  })
  .meta({ id: "ReplicaLoginPatch" });
export type ReplicaLoginPatch = z.infer<typeof replicaLoginPatchSchema>;

export const replicaLoginSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    username: z
      .string()
      .meta({ description: "The database login (in Azure a contained user of the analytics database)" }),
    connectionLimit,
    statementTimeoutSeconds,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "ReplicaLogin" });
export type ReplicaLogin = z.infer<typeof replicaLoginSchema>;

/** A login as stored: one created before limits existed has the defaults (as the database enforces them). */
export const withLimits = (
  login: Omit<ReplicaLogin, keyof ReplicaLoginLimits> & Partial<ReplicaLoginLimits>,
): ReplicaLogin => ({
  ...login,
  connectionLimit: login.connectionLimit ?? DEFAULT_CONNECTION_LIMIT,
  statementTimeoutSeconds: login.statementTimeoutSeconds ?? DEFAULT_STATEMENT_TIMEOUT_SECONDS,
});

export const replicaLoginWithPasswordSchema = replicaLoginSchema
  .extend({ password: z.string().meta({ description: "Shown only in this response" }) })
  .meta({ id: "ReplicaLoginWithPassword" });

export const replicaLoginIdParams = z.object({ id: idParam(100) });

/**
 * A database user name from the login's name: `ro_`, the name's letters and digits (20 at most), and six
 * random ones, so that it is unique, readable, and safe in DDL on both engines.
 */
export function replicaUsername(name: string, random: () => Buffer = () => randomBytes(6)): string {
  const slug = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 20)
    .replace(/_+$/, "");
  const suffix = [...random()].map((b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
  return slug === "" ? `ro_${suffix}` : `ro_${slug}_${suffix}`;
}

/**
 * A password Azure SQL Database accepts (upper case, lower case, digits and a symbol) with 192 random
 * bits, in characters that need no quoting in either engine's DDL.
 */
export function replicaPassword(random: () => Buffer = () => randomBytes(24)): string {
  return `Ro1-${random().toString("base64url")}`;
}
