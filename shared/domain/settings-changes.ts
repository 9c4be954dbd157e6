import { isDeepStrictEqual } from "node:util";
import { REDACTED, type AuditAction, type AuditChange, type AuditNote, type AuditSubject } from "./settings-audit";

/** The part of an audit entry a write decides: what happened to which item, field by field. */
export interface AuditDraft {
  action: AuditAction;
  resource: { type: AuditSubject<unknown>["type"]; id: string; name: string };
  changes: AuditChange[];
}

/** Bookkeeping every write moves: the entry's own `at` says when. */
const IGNORED = new Set(["updatedAt"]);
const OFF_STATUSES = new Set(["disabled", "paused"]);
/** Fields that follow a status change and do not make it more than an enable or disable. */
const STATUS_COMPANIONS = new Set(["status", "disabledReason"]);

/**
 * The audit draft of one write of a settings item (`before` undefined: created; `after` undefined:
 * deleted), or undefined when it changed nothing an answer shows and no secret. Values come only from
 * `subject.publicView` (what the settings answers show); a change anywhere else in the stored form
 * (a sealed secret, a hash) is recorded redacted, so a secret cannot reach the trail even if a new one
 * is added to a stored form later.
 */
export function auditDraft<T>(
  subject: AuditSubject<T>,
  id: string,
  before: T | undefined,
  after: T | undefined,
  note?: AuditNote,
): AuditDraft | undefined {
  const item = after ?? before;
  if (item === undefined) return undefined;
  const publicBefore = flatten(before === undefined ? {} : subject.publicView(before));
  const publicAfter = flatten(after === undefined ? {} : subject.publicView(after));
  const changes: AuditChange[] = [];
  for (const field of union(publicBefore, publicAfter)) {
    if (IGNORED.has(field)) continue;
    const from = publicBefore.get(field) ?? null;
    const to = publicAfter.get(field) ?? null;
    if (!isDeepStrictEqual(from, to)) changes.push({ field, from, to });
  }
  const shown = new Set([...publicBefore.keys(), ...publicAfter.keys()]);
  const secretsBefore = flatten(before ?? {});
  const secretsAfter = flatten(after ?? {});
  const secrets = new Set(note?.secrets ?? []);
  for (const field of union(secretsBefore, secretsAfter)) {
    if (shown.has(field) || isDeepStrictEqual(secretsBefore.get(field), secretsAfter.get(field))) continue;
    secrets.add(secretName(field));
  }
  for (const field of secrets) {
    changes.push({
      field,
      from: before === undefined ? null : REDACTED,
      to: after === undefined ? null : REDACTED,
    });
  }
  changes.push(...(note?.changes ?? []));
  if (changes.length === 0 && note === undefined) return undefined;
  return {
    action: note?.action ?? actionOf(before, after, changes),
    resource: { type: subject.type, id, name: subject.name(item) },
    changes,
  };
}

function actionOf<T>(before: T | undefined, after: T | undefined, changes: AuditChange[]): AuditAction {
  if (before === undefined) return "created";
  if (after === undefined) return "deleted";
  if (changes.every((c) => c.from === REDACTED && c.to === REDACTED)) return "rotated";
  const status = changes.find((c) => c.field === "status");
  if (status !== undefined && changes.every((c) => STATUS_COMPANIONS.has(c.field))) {
    return OFF_STATUSES.has(String(status.to)) ? "disabled" : "enabled";
  }
  return "updated";
}

/** A stored secret's field named for the secret, not for how it is kept (`secretHash` is the client secret's). */
function secretName(field: string): string {
  if (field === "secretHash") return "clientSecret";
  return field.replace(/Hash$/, "").replace(/^previousSecret\..*$/, "previousSecret");
}

/** Leaf values by dotted path; arrays are leaves (a list of events or scopes changes as a whole). */
function flatten(value: object, prefix = "", into = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, child] of Object.entries(value) as [string, unknown][]) {
    if (child === undefined) continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (child !== null && typeof child === "object" && !Array.isArray(child)) flatten(child, path, into);
    else into.set(path, child);
  }
  return into;
}

function union(a: Map<string, unknown>, b: Map<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])];
}
