import { randomBytes } from "node:crypto";
import { toPublicExport, type Export, type ExportCreate, type StoredExport } from "../../domain/export";
import {
  checkDestination,
  hostKeyApproval,
  requireCredential,
  requireKnownStatus,
  storedDefinition,
  type ExportDefinitionDeps,
} from "./export-definition";

export type CreateExportDeps = ExportDefinitionDeps;

/**
 * System Settings › Exports: a new definition. Its destination is checked when saved: a container of
 * an Azure storage account (or of the service's own emulator), never the service's own storage; an
 * SFTP host the SSRF guard accepts. Its secrets are sealed at rest and never answered.
 */
export class CreateExport {
  constructor(private readonly deps: CreateExportDeps) {}

  /** `actor`: the API client saving it (recorded as who approved a host key). */
  async execute(input: ExportCreate, actor: string): Promise<Export> {
    requireCredential(input.destination);
    requireKnownStatus(input);
    const destination = checkDestination(input.destination, this.deps.destinations);
    const id = `ex_${randomBytes(9).toString("hex")}`;
    const now = this.deps.clock.now();
    const stored: StoredExport = {
      id,
      ...storedDefinition(
        this.deps,
        id,
        { ...input, destination },
        {},
        hostKeyApproval(destination, undefined, actor, now),
      ),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await this.deps.repository.create(stored);
    return toPublicExport(stored, null);
  }
}
