import type { z } from "zod";
import { exportCreateSchema, type ExportCreate, type ExportPatch, type StoredExport } from "./export";
import type { StoredExportDestination } from "./export-destination";

type Plain = Record<string, unknown>;

/** `base` with `patch` laid over it; a null in the patch removes the field. */
function overlay(base: Plain, patch: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = value;
  }
  return out;
}

export type PatchedExport =
  | { success: true; data: ExportCreate; keep: { password?: string; privateKey?: string } }
  | { success: false; issues: readonly z.core.$ZodIssue[] };

/**
 * The definition a PATCH leads to, validated whole with the create schema: nested objects are merged
 * (a null removes a field); a schedule whose frequency changes drops the day that no longer applies
 * unless the patch names one; a destination of the same type keeps its stored secret unless the patch
 * brings one (returned as `keep`, still sealed), while a changed type starts afresh and must bring
 * everything it needs.
 */
export function patchedExport(stored: StoredExport, patch: ExportPatch): PatchedExport {
  const {
    password: sealedPassword,
    privateKey: sealedKey,
    hostKeyApprovedBy: _by,
    hostKeyApprovedAt: _at,
    ...storedDestination
  } = stored.destination as StoredExportDestination & {
    password?: string;
    privateKey?: string;
    hostKeyApprovedBy?: string;
    hostKeyApprovedAt?: string;
  };
  let schedule = overlay(stored.schedule, patch.schedule ?? {});
  if (patch.schedule?.frequency !== undefined && patch.schedule.frequency !== stored.schedule.frequency) {
    const { dayOfWeek, dayOfMonth, ...rest } = schedule;
    schedule = {
      ...rest,
      ...(patch.schedule.dayOfWeek != null ? { dayOfWeek } : {}),
      ...(patch.schedule.dayOfMonth != null ? { dayOfMonth } : {}),
    };
  }
  const sameType = patch.destination?.type === undefined || patch.destination.type === stored.destination.type;
  const destination = sameType
    ? overlay(storedDestination, patch.destination ?? {})
    : overlay({}, patch.destination ?? {});
  const bringsSecret = patch.destination?.password != null || patch.destination?.privateKey != null;
  const keep =
    sameType && !bringsSecret
      ? {
          ...(sealedPassword !== undefined ? { password: sealedPassword } : {}),
          ...(sealedKey !== undefined ? { privateKey: sealedKey } : {}),
        }
      : {};
  const candidate = {
    name: patch.name ?? stored.name,
    dataType: patch.dataType ?? stored.dataType,
    format: patch.format ?? stored.format,
    schedule,
    destination,
    fileName: patch.fileName ?? stored.fileName,
    filters: patch.filters === null ? {} : overlay(stored.filters, patch.filters ?? {}),
    status: patch.status ?? stored.status,
  };
  const parsed = exportCreateSchema.safeParse(candidate);
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  return { success: true, data: parsed.data, keep };
}
