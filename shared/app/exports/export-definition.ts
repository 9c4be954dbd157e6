import { AppError, notFound } from "../../domain/errors";
import type { ExportCreate, StoredExport } from "../../domain/export";
import {
  normalizeFingerprint,
  type ExportDestinationInput,
  type StoredExportDestination,
} from "../../domain/export-destination";
import { nextRunAt } from "../../domain/export-schedule";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { Clock } from "../../ports/clock";
import type { ExportRepository } from "../../ports/exports";
import { exportStatuses } from "./data-sets";
import { destinationProblems, type DestinationRules } from "./destination-rules";

// What the export use cases share: the stored definition or a 404, and the checks and sealing of a definition being saved.

/** The use cases that need the stored definitions alone (get, list, delete). */
export interface ExportsDeps {
  repository: ExportRepository;
}

/**
 * Saving a definition: destination secrets sealed at rest with the cipher of webhook secrets (never
 * answered), the destination checked against the rules, the next scheduled time computed.
 */
export interface ExportDefinitionDeps extends ExportsDeps {
  cipher: WebhookSecretCipher;
  clock: Clock;
  /** Which containers and hosts a destination may name. */
  destinations: DestinationRules;
}

/** Secrets kept from the stored destination when a PATCH sends none. */
export type KeptSecrets = { password?: string; privateKey?: string };

/** The stored definition; 404 when there is none. */
export async function requireExport(repository: ExportRepository, id: string): Promise<StoredExport> {
  const stored = await repository.get(id);
  if (stored === undefined) throw notFound(`Export '${id}'`);
  return stored;
}

const invalid = (field: string, message: string): AppError =>
  new AppError("VALIDATION_ERROR", "The request body failed validation", { details: [{ field, message }] });

/** An SFTP destination needs one way to log in: a password or a private key. */
export function requireCredential(destination: ExportDestinationInput, kept: KeptSecrets = {}): void {
  if (destination.type !== "sftp") return;
  if (
    destination.password === undefined &&
    destination.privateKey === undefined &&
    kept.password === undefined &&
    kept.privateKey === undefined
  ) {
    throw invalid("destination.password", "an SFTP destination needs a password or a privateKey");
  }
}

/** `filters.status` must be a status of the data type's records (prices and FX rates have none). */
export function requireKnownStatus(d: Pick<ExportCreate, "dataType" | "filters">): void {
  if (d.filters.status === undefined) return;
  const allowed = exportStatuses[d.dataType];
  if (allowed === undefined) throw invalid("filters.status", `${d.dataType} have no status to filter on`);
  if (!allowed.includes(d.filters.status))
    throw invalid("filters.status", `must be one of ${allowed.join(", ")} for ${d.dataType}`);
}

/** The destination with its container URL normalised; a 422 naming the field when it may not be used. */
export function checkDestination(d: ExportDestinationInput, rules: DestinationRules): ExportDestinationInput {
  const { details, containerUrl } = destinationProblems(d, rules);
  if (details.length > 0) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details });
  return d.type === "blob" && containerUrl !== undefined ? { ...d, containerUrl } : d;
}

/** Who approved an SFTP destination's host key, and when. */
export type HostKeyApproval = { hostKeyApprovedBy?: string; hostKeyApprovedAt?: string };

/**
 * The approval of the destination's host key: kept while the fingerprint stays what it was (spelled
 * any way), recorded anew (`actor`, now) when it is set or changed, gone when it is removed.
 */
export function hostKeyApproval(
  next: ExportDestinationInput,
  previous: StoredExportDestination | undefined,
  actor: string,
  now: Date,
): HostKeyApproval {
  if (next.type !== "sftp" || next.hostKeyFingerprint === undefined) return {};
  const before = previous?.type === "sftp" ? previous : undefined;
  const same =
    before?.hostKeyFingerprint !== undefined &&
    normalizeFingerprint(before.hostKeyFingerprint) === normalizeFingerprint(next.hostKeyFingerprint);
  if (same)
    return {
      ...(before.hostKeyApprovedBy !== undefined ? { hostKeyApprovedBy: before.hostKeyApprovedBy } : {}),
      ...(before.hostKeyApprovedAt !== undefined ? { hostKeyApprovedAt: before.hostKeyApprovedAt } : {}),
    };
  return { hostKeyApprovedBy: actor, hostKeyApprovedAt: now.toISOString() };
}

/** The stored fields of a validated definition: secrets sealed (bound to the export id), the next run computed. */
export function storedDefinition(
  deps: ExportDefinitionDeps,
  id: string,
  input: ExportCreate,
  keep: KeptSecrets,
  approval: HostKeyApproval = {},
): Omit<StoredExport, "id" | "createdAt" | "updatedAt"> {
  const sealed = sealDestination(deps.cipher, id, input.destination, keep);
  return {
    name: input.name,
    dataType: input.dataType,
    format: input.format,
    schedule: input.schedule,
    destination: sealed.type === "sftp" ? { ...sealed, ...approval } : sealed,
    fileName: input.fileName,
    filters: input.filters,
    status: input.status,
    nextRunAt: input.status === "enabled" ? nextRunAt(input.schedule, deps.clock.now()).toISOString() : null,
  };
}

function sealDestination(
  cipher: WebhookSecretCipher,
  id: string,
  d: ExportDestinationInput,
  keep: KeptSecrets,
): StoredExportDestination {
  if (d.type === "blob")
    return { type: "blob", containerUrl: d.containerUrl, ...(d.prefix !== undefined ? { prefix: d.prefix } : {}) };
  const { password, privateKey, ...rest } = d;
  return {
    ...rest,
    ...(password !== undefined
      ? { password: cipher.seal(password, id) }
      : privateKey === undefined && keep.password !== undefined
        ? { password: keep.password }
        : {}),
    ...(privateKey !== undefined
      ? { privateKey: cipher.seal(privateKey, id) }
      : password === undefined && keep.privateKey !== undefined
        ? { privateKey: keep.privateKey }
        : {}),
  };
}
