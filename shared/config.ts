import { z } from "zod";
import { currencyCode } from "./domain/currency";
import { parseStorageConnectionString, StorageConnectionStringError } from "./domain/storage-connection-string";

const positiveInt = z.coerce.number().int().positive();
const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
/** Refused at start-up when it cannot be read one way: the service's own-storage checks and the SDKs must read the same account. */
const storageConnectionString = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      parseStorageConnectionString(value);
    } catch (error) {
      if (!(error instanceof StorageConnectionStringError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
    }
  });

/** Every app setting the service reads. Names are the Azure app settings / local.settings.json Values. */
export const configSchema = z
  .object({
    COSMOS_ENDPOINT: z.url(),
    /** Absent in Azure: the managed identity is used instead of a key. */
    COSMOS_KEY: z.string().min(1).optional(),
    COSMOS_DATABASE: z.string().min(1).default("investment-data"),
    /** Off for the local emulator, which answers on one loopback address only. */
    COSMOS_ENDPOINT_DISCOVERY: flag.default(true),
    STORAGE_CONNECTION_STRING: storageConnectionString.optional(),
    STORAGE_BLOB_ENDPOINT: z.url().optional(),
    STORAGE_QUEUE_ENDPOINT: z.url().optional(),
    /** The Functions host's storage account (set by infra/; the service's own account too): never a customer's container. */
    AzureWebJobsStorage__accountName: z.string().min(1).optional(),
    MESSAGE_BUS: z.enum(["storage-queue", "service-bus"]).default("storage-queue"),
    SERVICEBUS_NAMESPACE: z.string().min(1).optional(),
    SERVICEBUS_CONNECTION_STRING: z.string().min(1).optional(),
    JWT_SIGNING_KEY: z
      .string()
      .refine((v) => Buffer.from(v, "base64").length >= 32, "must be base64 of at least 32 bytes"),
    JWT_KEY_ID: z.string().min(1).default("k1"),
    /** Optional previous key, still accepted for verification during a key rotation. */
    JWT_PREVIOUS_SIGNING_KEY: z
      .string()
      .refine((v) => Buffer.from(v, "base64").length >= 32, "must be base64 of at least 32 bytes")
      .optional(),
    JWT_PREVIOUS_KEY_ID: z.string().min(1).optional(),
    JWT_ISSUER: z.string().min(1).default("investment-data-service"),
    JWT_AUDIENCE: z.string().min(1).default("investment-data-api"),
    BOOTSTRAP_CLIENT_ID: z.string().min(3).max(100).optional(),
    BOOTSTRAP_CLIENT_SECRET: z.string().min(16).optional(),
    RATE_LIMIT_STANDARD_PER_MINUTE: positiveInt.default(60),
    RATE_LIMIT_STANDARD_PER_DAY: positiveInt.default(10_000),
    RATE_LIMIT_PREMIUM_PER_MINUTE: positiveInt.default(300),
    RATE_LIMIT_PREMIUM_PER_DAY: positiveInt.default(100_000),
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: positiveInt.default(60),
    RATE_LIMIT_ANONYMOUS_PER_DAY: positiveInt.default(10_000),
    /** How long a disabled client's live tokens may still work on another instance. */
    AUTH_CLIENT_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
    /** When abandoned imports (running with an expired lease) are marked failed; NCRONTAB, every minute by default. */
    JOBS_REAP_SCHEDULE: z.string().min(1).default("0 */1 * * * *"),
    /** When the outbox relay sends again events whose fan-out never completed (never sent, lost, or cut short); NCRONTAB, every 30 s by default. */
    OUTBOX_RELAY_SCHEDULE: z.string().min(1).default("*/30 * * * * *"),
    /**
     * The relay leaves entries younger than this to the write that appended them, which may still be
     * sending, and to the fan-out: a 10,000-event import takes about 30 s to publish to local Azurite
     * queues.
     */
    OUTBOX_RELAY_GRACE_SECONDS: z.coerce.number().int().min(0).default(60),
    /**
     * An event the relay sent whose fan-out has still not completed this long after (that message lost
     * too, or its process killed mid-way) is sent to the fan-out again, on the relay's timer.
     */
    FAN_OUT_SWEEP_GRACE_SECONDS: z.coerce.number().int().min(0).default(120),
    /** Price types valuation uses, most preferred first. */
    VALUATION_PRICE_PREFERENCE: z
      .string()
      .default("close,nav,mid")
      .transform((v) => v.split(",").map((t) => t.trim()))
      .pipe(z.array(z.enum(["close", "mid", "bid", "ask", "nav"])).min(1)),
    /**
     * Currencies a cross rate goes through when neither the direct nor the inverse rate exists: the
     * first for which both legs exist. Empty: no cross rates.
     */
    FX_PIVOT_CURRENCIES: z
      .string()
      .default("USD,EUR")
      .transform((v) => v.split(",").flatMap((c) => (c.trim() === "" ? [] : [c.trim().toUpperCase()])))
      .pipe(
        z.array(currencyCode).refine((list) => new Set(list).size === list.length, "must not name a currency twice"),
      ),
    /** A price older than this many days before the valuation date opens a STALE_PRICE exception. */
    STALE_PRICE_DAYS: z.coerce.number().int().min(0).default(5),
    /** A day-on-day price move beyond this fraction opens a PRICE_JUMP exception. */
    PRICE_JUMP_THRESHOLD: z.coerce.number().positive().default(0.25),
    /** When stale valuations whose queue message was lost are re-enqueued; NCRONTAB, every minute by default. */
    VALUATION_SWEEP_SCHEDULE: z.string().min(1).default("0 */1 * * * *"),
    /** The sweep re-enqueues stale markers older than this (younger ones still have their message on the way). */
    VALUATION_SWEEP_AGE_SECONDS: z.coerce.number().int().min(0).default(60),
    /** Seconds an import's valuations wait on the queue, so that a burst of imports to the same portfolios is valued once. */
    VALUATION_DELAY_SECONDS: z.coerce.number().int().min(0).max(300).default(0),
    APPLICATIONINSIGHTS_CONNECTION_STRING: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    /** Lifts the SSRF guard on every outbound connection to a customer's endpoint (webhook URLs, export SFTP hosts): local runtime and tests only. */
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag.default(false),
    /** AES-256-GCM key (base64 of 32 bytes) sealing webhook signing secrets and export destination secrets (SFTP passwords, private keys) at rest; a Key Vault reference in Azure. */
    WEBHOOK_SECRET_KEY: z.string().refine((v) => Buffer.from(v, "base64").length === 32, "must be base64 of 32 bytes"),
    /** Seconds before each webhook retry, comma-separated; the delivery fails when they are spent. */
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .default("5,300,1800,7200,18000,36000,50400,72000,86400")
      .transform((v) => v.split(",").map((s) => Number(s.trim())))
      .pipe(
        z
          .array(
            z
              .number()
              .positive()
              .max(7 * 24 * 3600),
          )
          .min(1),
      ),
    /** A webhook whose every delivery has failed for this many days (fractions allowed) is disabled, with the reason. */
    WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().positive().max(365).default(5),
    /** When pending deliveries whose message was lost (or whose sender died) are sent again; NCRONTAB, every minute by default. */
    DELIVERIES_SWEEP_SCHEDULE: z.string().min(1).default("0 */1 * * * *"),
    /** How long past its due time a pending delivery waits for its own message before the sweep re-sends it. */
    DELIVERIES_SWEEP_GRACE_SECONDS: z.coerce.number().int().min(0).default(60),
    /** When the blob sources' scheduler looks for due sources (each due time is claimed once); NCRONTAB, every minute by default. */
    BLOB_SOURCES_SCHEDULE: z.string().min(1).default("0 */1 * * * *"),
    /** When the exports timer claims due export runs and re-sends runs whose attempt died; NCRONTAB, every minute by default. */
    EXPORTS_SCHEDULE: z.string().min(1).default("0 */1 * * * *"),
    /** How long an export attempt holds its run without renewing (it renews at a third of it); past it the timer hands the run to another attempt. */
    EXPORTS_RUN_LEASE_SECONDS: z.coerce.number().int().min(3).default(120),
    /** Seconds a failed export attempt waits before the next (three attempts in all). */
    EXPORTS_RETRY_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    /** Seconds to reach a customer's SFTP server and finish the SSH handshake. */
    EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(20),
    /** Seconds one export upload may take in all (connection included) before the attempt fails. */
    EXPORTS_UPLOAD_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(3600),
    /**
     * Feed dry runs (POST /settings/feeds/{id}/test) one instance parses at once: each may hold about
     * 100 MB (a workbook's shared strings); one more is answered 503 with Retry-After.
     */
    FEED_DRY_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /**
     * Rows of a delivered file (SFTP or blob) imported per call, each call one stored batch with its
     * fixed costs (the job's lease renewed, the newest-price documents merged, what the rows make stale
     * looked up): larger calls ingest faster; the service holds two calls' rows at once. At most the
     * import's stored batch (COMMIT_BATCH, 20,000).
     */
    FEED_IMPORT_BATCH_ROWS: z.coerce.number().int().min(1000).max(20_000).default(20_000),
    /** The SFTP host providers connect to, shown with each feed's login. */
    SFTP_HOST: z.string().min(1).default("127.0.0.1"),
    /** The SFTP port providers connect to, shown with each feed's login. */
    SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(2222),
    /**
     * Who keeps the feeds' SFTP logins: `local`, the local runtime's SFTP drop (password hashes with the
     * feed); `azure`, the storage account's SFTP local users (STORAGE_ACCOUNT_RESOURCE_ID).
     */
    SFTP_LOGINS: z.enum(["local", "azure"]).default("local"),
    /** The local SFTP drop: uploads one login may have open at once (each holds up to 8 MB while open). */
    SFTP_MAX_UPLOADS_PER_LOGIN: positiveInt.default(4),
    /** The local SFTP drop: uploads open at once in all. */
    SFTP_MAX_UPLOADS: positiveInt.default(16),
    /** The local SFTP drop: failed password or key attempts one connection may make before it is closed. */
    SFTP_MAX_AUTH_TRIES: positiveInt.default(6),
    /** The local SFTP drop: seconds an address waits after a failed password, doubling with each further failure. */
    SFTP_AUTH_BACKOFF_SECONDS: z.coerce.number().positive().max(60).default(1),
    /** The local SFTP drop: the longest such wait; an attempt that would queue longer is refused unchecked. */
    SFTP_AUTH_BACKOFF_MAX_SECONDS: z.coerce.number().positive().max(600).default(10),
    /** The storage account whose local users are the feeds' logins: /subscriptions/…/resourceGroups/…/providers/Microsoft.Storage/storageAccounts/<name>. */
    STORAGE_ACCOUNT_RESOURCE_ID: z
      .string()
      .regex(
        /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Storage\/storageAccounts\/[a-z0-9]{3,24}$/i,
        "must be a storage account's resource id",
      )
      .optional(),
    /** The organisation's plan: the read-only SQL replica is an Enterprise feature (API.md). Bicep sets it; the local runtime runs the replica. */
    ORGANISATION_PLAN: z.enum(["standard", "premium", "enterprise"]).default("enterprise"),
    /** The replica's engine: `postgres` (the local runtime's server) or `sqlserver` (Azure SQL Database, managed identity). */
    REPLICA_ENGINE: z.enum(["postgres", "sqlserver"]).default("postgres"),
    /** Where the service reaches the replica: the local server, or the logical server's name (`<server>.database.windows.net`). */
    REPLICA_HOST: z.string().min(1).default("127.0.0.1"),
    /** The host BI users are given (the server's DNS alias, when there is one); REPLICA_HOST when unset. */
    REPLICA_PUBLIC_HOST: z.string().min(1).optional(),
    /** The replica's port: 1433 for Azure SQL Database; the local PostgreSQL server listens on it (5433 by default). */
    REPLICA_PORT: z.coerce.number().int().min(1).max(65535).default(5433),
    /** The replica database BI users connect to. */
    REPLICA_DATABASE: z.string().min(1).default("analytics"),
    /** PostgreSQL only: the local server's owner, which writes the projection and manages logins. */
    REPLICA_ADMIN_USER: z
      .string()
      .regex(/^[a-z][a-z0-9_]{2,62}$/, "lowercase letters, digits and _")
      .default("replica_admin"),
    /** PostgreSQL only: that owner's password (set when the local server's data folder is first made); the local runtime requires it on the Enterprise plan. */
    REPLICA_ADMIN_PASSWORD: z.string().min(12).optional(),
    /** How often the replica's login watchdog stops statements and sessions past their login's limits (NCRONTAB, seconds first). */
    REPLICA_WATCHDOG_SCHEDULE: z.string().min(1).default("*/5 * * * * *"),
  })
  .superRefine((c, ctx) => {
    if ((c.BOOTSTRAP_CLIENT_ID === undefined) !== (c.BOOTSTRAP_CLIENT_SECRET === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [c.BOOTSTRAP_CLIENT_ID === undefined ? "BOOTSTRAP_CLIENT_ID" : "BOOTSTRAP_CLIENT_SECRET"],
        message: "BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET must be set together",
      });
    }
    if (c.SFTP_LOGINS === "azure" && c.STORAGE_ACCOUNT_RESOURCE_ID === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["STORAGE_ACCOUNT_RESOURCE_ID"],
        message: "is required when SFTP_LOGINS=azure",
      });
    }
    if ((c.JWT_PREVIOUS_SIGNING_KEY === undefined) !== (c.JWT_PREVIOUS_KEY_ID === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["JWT_PREVIOUS_KEY_ID"],
        message: "JWT_PREVIOUS_SIGNING_KEY and JWT_PREVIOUS_KEY_ID must be set together",
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";

  /** The settings at fault, by name (never their values). */
  constructor(
    message: string,
    readonly settings: readonly string[] = [],
  ) {
    super(message);
  }
}

/**
 * A value App Service left as it was written: a Key Vault reference it could not resolve (the app's
 * identity has no role on the vault yet, the secret or the vault is gone, the vault's network is
 * closed). The app must neither take it for the secret nor start without it.
 */
const UNRESOLVED_KEY_VAULT_REFERENCE = /^@Microsoft\.KeyVault\(/i;

/** Keeps the settings that have a value: an empty string counts as unset. */
function withValues(env: Record<string, string | undefined>): Record<string, string> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== "") cleaned[key] = value;
  return cleaned;
}

/** The service's settings whose value is an unresolved Key Vault reference, as problems. */
function unresolvedReferences(cleaned: Record<string, string>): { name: string; problem: string }[] {
  return Object.keys(configSchema.shape)
    .filter((name) => UNRESOLVED_KEY_VAULT_REFERENCE.test(cleaned[name] ?? ""))
    .map((name) => ({
      name,
      problem: `${name}: is an unresolved Key Vault reference (${cleaned[name]}): the app's identity could not read the secret`,
    }));
}

/** Parses settings; an empty string counts as unset. Throws a ConfigError naming every bad setting. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = withValues(env);
  const unresolved = unresolvedReferences(cleaned);
  if (unresolved.length > 0)
    throw new ConfigError(
      `Invalid configuration:\n  ${unresolved.map((u) => u.problem).join("\n  ")}`,
      unresolved.map((u) => u.name),
    );
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((i) => {
      const name = i.path.join(".") || "(config)";
      return {
        name,
        text: `${name}: ${cleaned[name] === undefined && i.code === "invalid_type" ? "is required" : i.message}`,
      };
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.map((p) => p.text).join("\n  ")}`, [
      ...new Set(problems.map((p) => p.name)),
    ]);
  }
  return result.data;
}

let cached: Config | undefined;

/** The process-wide config, parsed from process.env on first use; a ConfigError (thrown again on every call) while it is unusable. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Why the process-wide config is unusable, or undefined when it is usable. */
export function configProblem(): ConfigError | undefined {
  try {
    getConfig();
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

/**
 * One setting, parsed (its default applied) from process.env on its own: what functions read while
 * they register (a timer's schedule, the plan), so that a bad setting elsewhere (an unresolved Key
 * Vault reference) does not keep them from registering.
 */
export function getSetting<K extends keyof Config>(name: K): Config[K] {
  const value = withValues(process.env)[name];
  const parsed = configSchema.shape[name].safeParse(value);
  if (UNRESOLVED_KEY_VAULT_REFERENCE.test(value ?? "") || !parsed.success)
    throw new ConfigError(
      `Invalid configuration:\n  ${name}: ${parsed.success ? "is an unresolved Key Vault reference" : (parsed.error.issues[0]?.message ?? "is invalid")}`,
      [name],
    );
  return parsed.data as Config[K];
}
