import { AppError, notFound } from "../../domain/errors";
import type { Export, ExportPatch } from "../../domain/export";
import { patchedExport } from "../../domain/export-patch";
import { issuesToDetails } from "../../domain/validation";
import {
  checkDestination,
  hostKeyApproval,
  requireCredential,
  requireKnownStatus,
  storedDefinition,
  type ExportDefinitionDeps,
} from "./export-definition";
import { exportWithLastRun, type ExportReadDeps } from "./list-exports";

export type UpdateExportDeps = ExportDefinitionDeps & Pick<ExportReadDeps, "runs">;

/** Nested objects merge into the stored ones and the result is validated whole; the next run is computed again. */
export class UpdateExport {
  constructor(private readonly deps: UpdateExportDeps) {}

  /** `actor`: the API client saving it (recorded as who approved a changed host key). */
  async execute({ id, patch, actor }: { id: string; patch: ExportPatch; actor: string }): Promise<Export> {
    const next = await this.deps.repository.update(id, (current) => {
      const merged = patchedExport(current, patch);
      if (!merged.success)
        throw new AppError("VALIDATION_ERROR", "The request body failed validation", {
          details: issuesToDetails(merged.issues),
        });
      requireCredential(merged.data.destination, merged.keep);
      requireKnownStatus(merged.data);
      const destination = checkDestination(merged.data.destination, this.deps.destinations);
      const approval = hostKeyApproval(destination, current.destination, actor, this.deps.clock.now());
      const definition = storedDefinition(this.deps, id, { ...merged.data, destination }, merged.keep, approval);
      // A due time not yet claimed stays due when the schedule itself did not change.
      const sameSchedule = JSON.stringify(merged.data.schedule) === JSON.stringify(current.schedule);
      if (sameSchedule && definition.status === "enabled" && current.nextRunAt !== null)
        definition.nextRunAt = current.nextRunAt;
      return { ...current, ...definition, updatedAt: this.deps.clock.now().toISOString() };
    });
    if (next === undefined) throw notFound(`Export '${id}'`);
    return exportWithLastRun(this.deps.runs, next);
  }
}
