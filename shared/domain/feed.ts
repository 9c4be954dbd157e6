import { z } from "zod";
import { lastJobSchema, type LastJob } from "./last-run";
import { filePatternSchema } from "./feed-file-pattern";
import { feedMappingSchema, mappingProblems, type FeedMapping } from "./feed-mapping-rule";
import { feedFormatSchema, feedOptionsSchema, optionProblems } from "./feed-options";
import { idParam } from "./ids";
import { dataTypeSchema } from "./import-payload";

export { compileFilePattern } from "./feed-file-pattern";
export { feedMappingSchema, mappingRuleSchema, type FeedMapping, type MappingRule } from "./feed-mapping-rule";
export { feedFormats, feedFormatSchema, type FeedFormat, feedOptionsSchema, type FeedOptions } from "./feed-options";

export const feedStatusSchema = z.enum(["testing", "live", "paused"]);
export type FeedStatus = z.infer<typeof feedStatusSchema>;

export const feedValidationSchema = z
  .strictObject({
    onRowError: z.enum(["reject-file", "skip-row"]).default("reject-file"),
    maxRejectedRows: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: "skip-row: beyond this many rejected rows the file is rejected" }),
  })
  .meta({ id: "FeedValidation" });
export type FeedValidation = z.infer<typeof feedValidationSchema>;

const name = z.string().trim().min(1).max(200);

const definitionFields = {
  name,
  provider: name,
  dataType: dataTypeSchema,
  format: feedFormatSchema,
  filePattern: filePatternSchema,
  options: feedOptionsSchema.default({}),
  mapping: feedMappingSchema,
  validation: feedValidationSchema.default({ onRowError: "reject-file" }),
  status: feedStatusSchema.default("testing"),
};

/** A feed's definition as validated: what files it takes, how it reads, maps and validates them. */
export interface FeedDefinition {
  name: string;
  provider: string;
  dataType: z.infer<typeof dataTypeSchema>;
  format: z.infer<typeof feedFormatSchema>;
  filePattern: string;
  options: z.infer<typeof feedOptionsSchema>;
  mapping: FeedMapping;
  validation: FeedValidation;
  status: FeedStatus;
}

const CROSS_CHECKED = new Set<PropertyKey>(["dataType", "format", "options", "mapping"]);

/** The checks between fields: options against the format, mapping targets and sources against the data type and format. */
function checkDefinition(
  d: Pick<FeedDefinition, "dataType" | "format" | "options" | "mapping">,
  ctx: z.core.$RefinementCtx,
): void {
  for (const p of optionProblems(d.options, d.format))
    ctx.addIssue({ code: "custom", path: ["options", p.option], message: p.message });
  for (const p of mappingProblems(d.mapping, d.dataType, d.format))
    ctx.addIssue({ code: "custom", path: ["mapping", ...p.path], message: p.message });
}

/** The body of `POST /api/v1/settings/feeds`. */
export const feedCreateSchema = z
  .strictObject(definitionFields)
  // Runs when the fields it compares are valid themselves, whatever else is wrong, so that one answer names every problem.
  .superRefine(checkDefinition, {
    when: (payload) =>
      typeof payload.value === "object" &&
      payload.value !== null &&
      payload.issues.every(
        (i) =>
          i.code === "unrecognized_keys" ||
          (i.path !== undefined && i.path.length > 0 && !CROSS_CHECKED.has(i.path[0] ?? "")),
      ),
  })
  .meta({ id: "FeedCreate" });
export type FeedCreate = z.infer<typeof feedCreateSchema>;

const KEY_TYPES = new Set([
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
]);

/** Whether `line` is an OpenSSH public key: `type base64 [comment]`, the blob naming the same type. */
function isOpenSshPublicKey(line: string): boolean {
  const m = /^(\S+) ([A-Za-z0-9+/]+={0,2})(?: [^\r\n]*)?$/.exec(line.trim());
  if (m === null || !KEY_TYPES.has(m[1] ?? "")) return false;
  const blob = Buffer.from(m[2] ?? "", "base64");
  if (blob.length < 4) return false;
  const length = blob.readUInt32BE(0);
  return length < blob.length && blob.subarray(4, 4 + length).toString("latin1") === m[1];
}

const publicKeys = z
  .array(
    z
      .string()
      .max(16_384)
      .refine(isOpenSshPublicKey, { message: "must be an OpenSSH public key (ssh-ed25519 AAAA... comment)" }),
  )
  .max(20)
  .meta({ description: "OpenSSH public keys that may log in instead of the password" });

/** The body of `PATCH /api/v1/settings/feeds/{id}`: any field but id; given fields replace the stored ones whole. */
export const feedPatchSchema = z
  .strictObject({
    name: name.optional(),
    provider: name.optional(),
    dataType: dataTypeSchema.optional(),
    format: feedFormatSchema.optional(),
    filePattern: filePatternSchema.optional(),
    options: feedOptionsSchema.optional(),
    mapping: feedMappingSchema.optional(),
    validation: feedValidationSchema.optional(),
    status: feedStatusSchema.optional(),
    sftp: z.strictObject({ publicKeys }).optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "at least one field is required" })
  .meta({ id: "FeedPatch" });
export type FeedPatch = z.infer<typeof feedPatchSchema>;

/**
 * The definition a PATCH leads to, checked as a whole (a new format may not fit the stored options,
 * a new data type not the stored mapping): issues name the fields as the create body does.
 */
export function patchedDefinition(current: FeedDefinition, patch: FeedPatch): z.ZodSafeParseResult<FeedDefinition> {
  const { sftp: _sftp, ...fields } = patch;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) merged[key] = value;
  return feedCreateSchema.safeParse(merged);
}

const sftpSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  username: z.string(),
  publicKeys: z.array(z.string()),
});

export const feedSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    dataType: dataTypeSchema,
    format: feedFormatSchema,
    filePattern: z.string(),
    options: feedOptionsSchema,
    mapping: feedMappingSchema,
    validation: feedValidationSchema,
    status: feedStatusSchema,
    sftp: sftpSchema,
    lastJob: lastJobSchema.nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Feed" });
export type Feed = z.infer<typeof feedSchema>;

/** The answer to a create or `rotate-credentials`: the feed with its SFTP password, shown only here. */
export const feedWithPasswordSchema = feedSchema
  .extend({ sftp: sftpSchema.extend({ password: z.string().meta({ description: "Shown only in this response" }) }) })
  .meta({ id: "FeedWithPassword" });
export type FeedWithPassword = z.infer<typeof feedWithPasswordSchema>;

/** The stored form: the definition, the login and the password's hash. Never leaves the service. */
export interface StoredFeed extends FeedDefinition {
  id: string;
  /** passwordHash: only where the service checks the password itself (the local SFTP drop); Azure keeps its local users' own. */
  sftp: { username: string; publicKeys: string[]; passwordHash?: string };
  createdAt: string;
  updatedAt: string;
}

/** Where providers connect; from configuration, not stored with the feed. */
export interface SftpEndpoint {
  host: string;
  port: number;
}

export function toPublicFeed(stored: StoredFeed, endpoint: SftpEndpoint, lastJob: LastJob | null = null): Feed {
  const {
    id,
    name: n,
    provider,
    dataType,
    format,
    filePattern: fp,
    options,
    mapping,
    validation,
    status,
    sftp,
    createdAt,
    updatedAt,
  } = stored;
  return {
    id,
    name: n,
    provider,
    dataType,
    format,
    filePattern: fp,
    options,
    mapping,
    validation,
    status,
    sftp: { host: endpoint.host, port: endpoint.port, username: sftp.username, publicKeys: sftp.publicKeys },
    lastJob,
    createdAt,
    updatedAt,
  };
}

export const feedIdParams = z.object({ id: idParam(100) });
