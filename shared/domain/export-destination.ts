import { z } from "zod";

const CONTROL = /\p{Cc}/u;
const noControl = (v: string): boolean => !CONTROL.test(v);

/** A directory or prefix: no `..` segment, no backslash, no control characters. */
const safePath = (what: string) =>
  z
    .string()
    .max(1024)
    .refine(noControl, `${what} must not contain control characters`)
    .refine((v) => !v.includes("\\"), `${what} must use / as separator`)
    .refine((v) => !v.split("/").includes(".."), `${what} must not contain a .. segment`);

const host = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9._:\-[\]]+$/, "must be a host name or IP address");

/** OpenSSH's `SHA256:<base64>` (as `ssh-keygen -lf` prints it), bare base64, or 64 hex digits. */
const fingerprint = z
  .string()
  .max(100)
  .refine((v) => normalizeFingerprint(v) !== undefined, "must be a SHA-256 host key fingerprint: SHA256:<base64> as ssh-keygen -l prints it, or 64 hex digits");

/** The base64 (unpadded) of a SHA-256 fingerprint in any of the accepted spellings; undefined when it is none. */
export function normalizeFingerprint(value: string): string | undefined {
  const v = value.trim().replace(/^SHA256:/i, "");
  if (/^[0-9a-f]{64}$/i.test(v)) return Buffer.from(v, "hex").toString("base64").replace(/=+$/, "");
  if (/^[A-Za-z0-9+/]{43}=?$/.test(v) && Buffer.from(v, "base64").length === 32) return v.replace(/=+$/, "");
  return undefined;
}

const sftpFields = {
  type: z.literal("sftp"),
  host,
  port: z.number().int().min(1).max(65535).default(22),
  username: z.string().min(1).max(200).refine(noControl, "must not contain control characters"),
  password: z.string().min(1).max(1024).optional().meta({ description: "Write-only; stored encrypted" }),
  privateKey: z
    .string()
    .max(16384)
    .refine((v) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v), "must be a PEM or OpenSSH private key (-----BEGIN ... PRIVATE KEY-----)")
    .optional()
    .meta({ description: "Write-only; stored encrypted. Unencrypted PEM or OpenSSH format" }),
  hostKeyFingerprint: fingerprint.optional().meta({ description: "The server's SHA-256 host key fingerprint (SHA256:... as ssh-keygen -l prints it); when set, any other host key is refused" }),
  path: safePath("path").pipe(z.string().min(1)).meta({ description: "Directory on the server, created if missing" }),
};

const CONTAINER = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}$/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Why `value` is not a blob container URL, or undefined. https (plain http only to the local emulator on a loopback address). */
export function containerUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") return "must not carry a query (no SAS tokens), fragment or credentials: the service signs in with its managed identity";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname))) return "must be https (plain http only for the local emulator)";
  const container = url.pathname.replace(/\/+$/, "").split("/").pop() ?? "";
  if (!CONTAINER.test(container)) return "must end with a container name (3 to 63 lower-case letters, digits and hyphens)";
  return undefined;
}

const blobFields = {
  type: z.literal("blob"),
  containerUrl: z
    .string()
    .max(2048)
    .superRefine((v, ctx) => {
      const problem = containerUrlProblem(v);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .meta({ description: "https://ACCOUNT.blob.core.windows.net/CONTAINER (or the local emulator's URL)" }),
  prefix: safePath("prefix")
    .refine((v) => !v.startsWith("/"), "prefix must not start with /")
    .optional()
    .meta({ description: "Prepended to the file name (e.g. `daily/`)" }),
};

export const sftpDestinationSchema = z
  .strictObject(sftpFields)
  .refine((d) => d.password === undefined || d.privateKey === undefined, { path: ["privateKey"], message: "give a password or a privateKey, not both" });
export const blobDestinationSchema = z.strictObject(blobFields);

/** Where an export's files go (as sent: secrets in the clear). */
export const exportDestinationSchema = z.discriminatedUnion("type", [sftpDestinationSchema, blobDestinationSchema], { error: 'type must be "sftp" or "blob"' }).meta({ id: "ExportDestinationInput" });
export type ExportDestinationInput = z.infer<typeof exportDestinationSchema>;

/** A destination in a PATCH: any field; it is merged into the stored one (a changed type must bring what it needs). */
export const exportDestinationPatchSchema = z
  .strictObject({
    type: z.enum(["sftp", "blob"]).optional(),
    ...Object.fromEntries(Object.entries({ ...sftpFields, ...blobFields }).filter(([k]) => k !== "type").map(([k, v]) => [k, (v as z.ZodType).optional()])),
  })
  .meta({ id: "ExportDestinationPatch" });

/** The destination as answered: secrets replaced by whether one is stored. */
export const publicExportDestinationSchema = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("sftp"),
      host: z.string(),
      port: z.number().int(),
      username: z.string(),
      path: z.string(),
      hostKeyFingerprint: z.string().optional(),
      hasPassword: z.boolean(),
      hasPrivateKey: z.boolean(),
    }),
    z.object({ type: z.literal("blob"), containerUrl: z.string(), prefix: z.string().optional() }),
  ])
  .meta({ id: "ExportDestination" });
export type PublicExportDestination = z.infer<typeof publicExportDestinationSchema>;

/** A stored destination: secrets sealed (see WebhookSecretCipher; the export id is the additional data). */
export type StoredExportDestination =
  | { type: "sftp"; host: string; port: number; username: string; path: string; hostKeyFingerprint?: string; password?: string; privateKey?: string }
  | { type: "blob"; containerUrl: string; prefix?: string };

export function toPublicDestination(d: StoredExportDestination): PublicExportDestination {
  if (d.type === "blob") return { type: "blob", containerUrl: d.containerUrl, ...(d.prefix !== undefined ? { prefix: d.prefix } : {}) };
  return {
    type: "sftp",
    host: d.host,
    port: d.port,
    username: d.username,
    path: d.path,
    ...(d.hostKeyFingerprint !== undefined ? { hostKeyFingerprint: d.hostKeyFingerprint } : {}),
    hasPassword: d.password !== undefined,
    hasPrivateKey: d.privateKey !== undefined,
  };
}
