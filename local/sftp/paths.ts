/**
 * Paths as an SFTP login sees them: its inbox is `/`, holding files only. Anything else — `..`, a
 * subdirectory, a NUL, a name over 255 bytes, a name with a control character, a line or paragraph
 * separator or a noncharacter — is refused, never resolved.
 */
import { inboundNameProblem } from "../../shared/domain/inbound-name";

export type InboxPath = { kind: "root" } | { kind: "file"; name: string };

export const MAX_NAME_BYTES = 255;

/**
 * C0 and C1 controls and U+2028/U+2029: a name holding one reads as two lines wherever it is shown
 * (logs, listings, a job's fileName), and other tools treat it as a line end (a regex `.` does not
 * match it), so such a name is refused at upload instead of becoming a file nothing picks up.
 */
const BAD_NAME_CHARACTER = /[\p{Cc}\u2028\u2029]/u;

/**
 * Why a file name cannot be in an inbox, or undefined when it can. Besides the controls and line
 * separators, a name no store can hold (a noncharacter such as U+FFFE, or invalid UTF-8: see
 * inbound-name.ts) is refused at open, before anything is stored under it.
 */
export function fileNameProblem(name: string): string | undefined {
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return `a file name has at most ${MAX_NAME_BYTES} bytes`;
  if (BAD_NAME_CHARACTER.test(name))
    return "a file name must not hold control characters or line or paragraph separators (U+2028, U+2029)";
  const unholdable = inboundNameProblem(name);
  if (unholdable !== undefined)
    return `a file name must be Unicode text without noncharacters (U+FFFE, U+FFFF, U+FDD0…U+FDEF, …); this one ${unholdable}`;
  return undefined;
}

/** `/`, `.`, `` and `/./` are the inbox; `/a.csv`, `a.csv`, `./a.csv` a file in it; undefined when refused. */
export function inboxPath(path: string): InboxPath | undefined {
  if (path.includes("\u0000") || path.includes("\\")) return undefined;
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) return undefined;
  if (parts.length === 0) return { kind: "root" };
  if (parts.length > 1) return undefined;
  const name = parts[0] ?? "";
  if (fileNameProblem(name) !== undefined) return undefined;
  return { kind: "file", name };
}

/** What to tell a client whose path inboxPath refused. */
export function refusal(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  const name = parts.length === 1 && parts[0] !== ".." ? parts[0] : undefined;
  const problem = name === undefined || path.includes("\\") ? undefined : fileNameProblem(name);
  return `permission denied: ${problem ?? "outside the inbox"}`;
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
