import { randomBytes } from "node:crypto";
import { AppError, notFound } from "../../domain/errors";
import { toPublicExport, type Export, type ExportCreate, type ExportPatch, type StoredExport } from "../../domain/export";
import type { ExportDestinationInput, StoredExportDestination } from "../../domain/export-destination";
import { patchedExport } from "../../domain/export-patch";
import { toPublicRun, type ExportRun, type StoredExportRun } from "../../domain/export-run";
import { nextRunAt } from "../../domain/export-schedule";
import { paginationOf, type Pagination } from "../../domain/pagination";
import { issuesToDetails } from "../../domain/validation";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { Clock } from "../../ports/clock";
import type { ScheduledRunStore } from "../../ports/scheduled-runs";
import type { SettingsRepository } from "../../ports/settings-repository";
import type { ScheduledRuns } from "../scheduled-runs/scheduled-runs";
import { exportStatuses } from "./data-sets";
import { destinationProblems, type DestinationRules } from "./destination-rules";
import { newExportRun } from "./export-runs";

export type ExportRepository = SettingsRepository<StoredExport>;

const invalid = (field: string, message: string): AppError => new AppError("VALIDATION_ERROR", "The request body failed validation", { details: [{ field, message }] });

/** An SFTP destination needs one way to log in: a password or a private key. */
function requireCredential(destination: ExportDestinationInput, kept: { password?: string; privateKey?: string } = {}): void {
  if (destination.type !== "sftp") return;
  if (destination.password === undefined && destination.privateKey === undefined && kept.password === undefined && kept.privateKey === undefined) {
    throw invalid("destination.password", "an SFTP destination needs a password or a privateKey");
  }
}

/** `filters.status` must be a status of the data type's records (prices and FX rates have none). */
function requireKnownStatus(d: Pick<ExportCreate, "dataType" | "filters">): void {
  if (d.filters.status === undefined) return;
  const allowed = exportStatuses[d.dataType];
  if (allowed === undefined) throw invalid("filters.status", `${d.dataType} have no status to filter on`);
  if (!allowed.includes(d.filters.status)) throw invalid("filters.status", `must be one of ${allowed.join(", ")} for ${d.dataType}`);
}

export interface ExportsDeps {
  repository: ExportRepository;
  runs: ScheduledRunStore<StoredExportRun>;
  scheduledRuns: ScheduledRuns<StoredExport, StoredExportRun>;
  cipher: WebhookSecretCipher;
  clock: Clock;
  /** Which containers and hosts a destination may name. */
  destinations: DestinationRules;
}

/**
 * System Settings › Exports: definitions (destination secrets sealed at rest with the cipher of
 * webhook secrets, never answered), their next scheduled time, runs on demand and the run history.
 * A destination is checked when saved: a container of an Azure storage account (or of the service's
 * own emulator), never the service's own storage; an SFTP host the SSRF guard accepts.
 */
export class Exports {
  constructor(private readonly deps: ExportsDeps) {}

  async create(input: ExportCreate): Promise<Export> {
    requireCredential(input.destination);
    requireKnownStatus(input);
    const destination = this.checkDestination(input.destination);
    const id = `ex_${randomBytes(9).toString("hex")}`;
    const now = this.deps.clock.now();
    const stored: StoredExport = {
      id,
      ...this.definition(id, { ...input, destination }, {}),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await this.deps.repository.create(stored);
    return toPublicExport(stored);
  }

  async list(page: number, pageSize: number): Promise<{ items: Export[]; pagination: Pagination }> {
    const result = await this.deps.repository.list(page, pageSize);
    return { items: result.items.map(toPublicExport), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  async get(id: string): Promise<Export> {
    return toPublicExport(await this.stored(id));
  }

  /** Nested objects merge into the stored ones and the result is validated whole; the next run is computed again. */
  async update(id: string, patch: ExportPatch): Promise<Export> {
    const next = await this.deps.repository.update(id, (current) => {
      const merged = patchedExport(current, patch);
      if (!merged.success) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details: issuesToDetails(merged.issues) });
      requireCredential(merged.data.destination, merged.keep);
      requireKnownStatus(merged.data);
      const destination = this.checkDestination(merged.data.destination);
      const definition = this.definition(id, { ...merged.data, destination }, merged.keep);
      // A due time not yet claimed stays due when the schedule itself did not change.
      const sameSchedule = JSON.stringify(merged.data.schedule) === JSON.stringify(current.schedule);
      if (sameSchedule && definition.status === "enabled" && current.nextRunAt !== null) definition.nextRunAt = current.nextRunAt;
      return { ...current, ...definition, updatedAt: this.deps.clock.now().toISOString() };
    });
    if (next === undefined) throw notFound(`Export '${id}'`);
    return toPublicExport(next);
  }

  /**
   * The export goes; its runs stay in `runs` (no longer listed: the export is 404). A run in progress
   * is cancelled: its attempt checks the export is still there before its file becomes visible, and
   * otherwise records the run failed ("cancelled: the export was deleted") and delivers nothing.
   */
  async delete(id: string): Promise<void> {
    if (!(await this.deps.repository.delete(id))) throw notFound(`Export '${id}'`);
  }

  /** A manual run: scheduled for now (the naming tokens use it), performed by the `exports` queue. */
  async runNow(id: string): Promise<ExportRun> {
    const exp = await this.stored(id);
    const run = await this.deps.scheduledRuns.start((claim) => newExportRun(exp, claim.startedAt, "manual", claim));
    if (run === undefined) throw new AppError("CONFLICT", `A run of export '${id}' was asked for at this very moment; retry`, { retryable: true });
    return toPublicRun(run);
  }

  async listRuns(id: string, page: number, pageSize: number): Promise<{ items: ExportRun[]; pagination: Pagination }> {
    await this.stored(id);
    const result = await this.deps.runs.list(id, { page, pageSize });
    return { items: result.items.map(toPublicRun), pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  /** The stored fields of a validated definition: secrets sealed (bound to the export id), the next run computed. */
  private definition(id: string, input: ExportCreate, keep: { password?: string; privateKey?: string }): Omit<StoredExport, "id" | "createdAt" | "updatedAt"> {
    return {
      name: input.name,
      dataType: input.dataType,
      format: input.format,
      schedule: input.schedule,
      destination: this.sealDestination(id, input.destination, keep),
      fileName: input.fileName,
      filters: input.filters,
      status: input.status,
      nextRunAt: input.status === "enabled" ? nextRunAt(input.schedule, this.deps.clock.now()).toISOString() : null,
    };
  }

  /** The destination with its container URL normalised; a 422 naming the field when it may not be used. */
  private checkDestination(d: ExportDestinationInput): ExportDestinationInput {
    const { details, containerUrl } = destinationProblems(d, this.deps.destinations);
    if (details.length > 0) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details });
    return d.type === "blob" && containerUrl !== undefined ? { ...d, containerUrl } : d;
  }

  private sealDestination(id: string, d: ExportDestinationInput, keep: { password?: string; privateKey?: string }): StoredExportDestination {
    if (d.type === "blob") return { type: "blob", containerUrl: d.containerUrl, ...(d.prefix !== undefined ? { prefix: d.prefix } : {}) };
    const { password, privateKey, ...rest } = d;
    return {
      ...rest,
      ...(password !== undefined ? { password: this.deps.cipher.seal(password, id) } : privateKey === undefined && keep.password !== undefined ? { password: keep.password } : {}),
      ...(privateKey !== undefined ? { privateKey: this.deps.cipher.seal(privateKey, id) } : password === undefined && keep.privateKey !== undefined ? { privateKey: keep.privateKey } : {}),
    };
  }

  private async stored(id: string): Promise<StoredExport> {
    const stored = await this.deps.repository.get(id);
    if (stored === undefined) throw notFound(`Export '${id}'`);
    return stored;
  }
}
