/**
 * Paths as an SFTP login sees them: its inbox is `/`, holding files only. Anything else — `..`, a
 * subdirectory, a NUL, a name over 255 bytes — is refused, never resolved.
 */
export type InboxPath = { kind: "root" } | { kind: "file"; name: string };

export const MAX_NAME_BYTES = 255;

/** `/`, `.`, `` and `/./` are the inbox; `/a.csv`, `a.csv`, `./a.csv` a file in it; undefined when refused. */
export function inboxPath(path: string): InboxPath | undefined {
  if (path.includes("\u0000") || path.includes("\\")) return undefined;
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) return undefined;
  if (parts.length === 0) return { kind: "root" };
  if (parts.length > 1) return undefined;
  const name = parts[0] ?? "";
  if (Buffer.byteLength(name) > MAX_NAME_BYTES || /[\u0000-\u001f\u007f]/.test(name)) return undefined;
  return { kind: "file", name };
}

const CONTENT_TYPES: Record<string, string> = {
  csv: "text/csv",
  txt: "text/plain",
  fix: "text/plain",
  json: "application/json",
  xml: "application/xml",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** The blob's content type, by the file name's extension. */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return (dot < 0 ? undefined : CONTENT_TYPES[name.slice(dot + 1).toLowerCase()]) ?? "application/octet-stream";
}
