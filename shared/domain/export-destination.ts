import { isIPv4, isIPv6 } from "node:net";
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

const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);

/**
 * Why `host` cannot name an SFTP server, or undefined: a DNS name, an IPv4 address in dotted-decimal,
 * or an IPv6 address without brackets. Forms that resolvers read as some other address (`2130706433`,
 * `0x7f000001`, `127.1`, `0177.0.0.1` are all 127.0.0.1) are refused, so the address checked is the
 * address connected to. Which addresses may be reached is the SSRF guard's affair (OutboundHosts).
 */
export function sftpHostProblem(host: string): string | undefined {
  if (host.startsWith("[") || host.endsWith("]")) return "write an IPv6 address without brackets (::1, not [::1])";
  if (host.includes(":"))
    return isIPv6(host) && !host.includes("%")
      ? undefined
      : "must be a host name, an IPv4 address or an IPv6 address (without a zone)";
  if (!HOST_NAME.test(host) || host.length > 253) return "must be a host name, an IPv4 address or an IPv6 address";
  // The WHATWG URL parser reads a host the way resolvers do: a name whose last label is numeric is an IPv4 address in some encoding.
  let canonical: string;
  try {
    canonical = new URL(`http://${host}/`).hostname;
  } catch {
    return "must be a host name, an IPv4 address or an IPv6 address";
  }
  if (isIPv4(canonical) && canonical !== host.replace(/\.$/, ""))
    return `write the IPv4 address as four decimal numbers (${canonical}), not in another encoding`;
  return undefined;
}

const host = z
  .string()
  .min(1)
  .max(253)
  .superRefine((v, ctx) => {
    const problem = sftpHostProblem(v);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description:
      "DNS name, IPv4 address or IPv6 address (no brackets). A public address unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
  });

/** OpenSSH's `SHA256:<base64>` (as `ssh-keygen -lf` prints it), bare base64, or 64 hex digits. */
const fingerprint = z
  .string()
  .max(100)
  .refine(
    (v) => normalizeFingerprint(v) !== undefined,
    "must be a SHA-256 host key fingerprint: SHA256:<base64> as ssh-keygen -l prints it, or 64 hex digits",
  );

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
    .refine(
      (v) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v),
      "must be a PEM or OpenSSH private key (-----BEGIN ... PRIVATE KEY-----)",
    )
    .optional()
    .meta({ description: "Write-only; stored encrypted. Unencrypted PEM or OpenSSH format" }),
  hostKeyFingerprint: fingerprint.optional().meta({
    description:
      "The server's SHA-256 host key fingerprint (SHA256:... as ssh-keygen -l prints it); when set, any other host key is refused",
  }),
  path: safePath("path").pipe(z.string().min(1)).meta({ description: "Directory on the server, created if missing" }),
};

const blobFields = {
  type: z.literal("blob"),
  // Shape only: the service then checks it is a container of an Azure storage account (or of its own emulator), never the service's own (parseContainerUrl).
  containerUrl: z.string().trim().min(1).max(2048).meta({
    description:
      "https://ACCOUNT.blob.core.windows.net/CONTAINER (sovereign clouds: .blob.core.usgovcloudapi.net, .blob.core.chinacloudapi.cn; or the local emulator's container URL when the service runs on it); no SAS or credentials: grant the service's managed identity Storage Blob Data Contributor on the container",
  }),
  prefix: safePath("prefix")
    .refine((v) => !v.startsWith("/"), "prefix must not start with /")
    .optional()
    .meta({ description: "Prepended to the file name (e.g. `daily/`)" }),
};

export const sftpDestinationSchema = z
  .strictObject(sftpFields)
  .refine((d) => d.password === undefined || d.privateKey === undefined, {
    path: ["privateKey"],
    message: "give a password or a privateKey, not both",
  });
export const blobDestinationSchema = z.strictObject(blobFields);

/** Where an export's files go (as sent: secrets in the clear). */
export const exportDestinationSchema = z
  .discriminatedUnion("type", [sftpDestinationSchema, blobDestinationSchema], {
    error: 'type must be "sftp" or "blob"',
  })
  .meta({ id: "ExportDestinationInput" });
export type ExportDestinationInput = z.infer<typeof exportDestinationSchema>;

/** A destination in a PATCH: any field; it is merged into the stored one (a changed type must bring what it needs). */
export const exportDestinationPatchSchema = z
  .strictObject({
    type: z.enum(["sftp", "blob"]).optional(),
    ...Object.fromEntries(
      Object.entries({ ...sftpFields, ...blobFields })
        .filter(([k]) => k !== "type")
        .map(([k, v]) => [k, (v as z.ZodType).optional()]),
    ),
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
      hostKeyApprovedBy: z.string().optional().meta({
        description: "The API client that set hostKeyFingerprint (e.g. approving what a connection test saw)",
      }),
      hostKeyApprovedAt: z.iso.datetime().optional().meta({ description: "When hostKeyFingerprint was set" }),
      hasPassword: z.boolean(),
      hasPrivateKey: z.boolean(),
    }),
    z.object({ type: z.literal("blob"), containerUrl: z.string(), prefix: z.string().optional() }),
  ])
  .meta({ id: "ExportDestination" });
export type PublicExportDestination = z.infer<typeof publicExportDestinationSchema>;

/** A stored destination: secrets sealed (see WebhookSecretCipher; the export id is the additional data). */
export type StoredExportDestination =
  | {
      type: "sftp";
      host: string;
      port: number;
      username: string;
      path: string;
      hostKeyFingerprint?: string;
      /** Who set the fingerprint and when: kept while it stays the same. */
      hostKeyApprovedBy?: string;
      hostKeyApprovedAt?: string;
      password?: string;
      privateKey?: string;
    }
  | { type: "blob"; containerUrl: string; prefix?: string };

export function toPublicDestination(d: StoredExportDestination): PublicExportDestination {
  if (d.type === "blob")
    return { type: "blob", containerUrl: d.containerUrl, ...(d.prefix !== undefined ? { prefix: d.prefix } : {}) };
  return {
    type: "sftp",
    host: d.host,
    port: d.port,
    username: d.username,
    path: d.path,
    ...(d.hostKeyFingerprint !== undefined ? { hostKeyFingerprint: d.hostKeyFingerprint } : {}),
    ...(d.hostKeyApprovedBy !== undefined ? { hostKeyApprovedBy: d.hostKeyApprovedBy } : {}),
    ...(d.hostKeyApprovedAt !== undefined ? { hostKeyApprovedAt: d.hostKeyApprovedAt } : {}),
    hasPassword: d.password !== undefined,
    hasPrivateKey: d.privateKey !== undefined,
  };
}
