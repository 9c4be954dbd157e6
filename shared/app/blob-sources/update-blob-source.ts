import type { BlobSource, BlobSourcePatch } from "../../domain/blob-source";
import { notFound } from "../../domain/errors";
import { withLastRun, type BlobSourceReadDeps } from "./list-blob-sources";
import { checkedContainerUrl, nextRunOf, requireBlobSource, type BlobSourceDefinitionDeps } from "./blob-source-rules";

export type UpdateBlobSourceDeps = BlobSourceDefinitionDeps & Pick<BlobSourceReadDeps, "runs">;

/** Given fields replace the stored ones; a new schedule, or enabling, computes `nextRunAt` from now; disabling clears it. */
export class UpdateBlobSource {
  constructor(private readonly deps: UpdateBlobSourceDeps) {}

  async execute({ id, patch }: { id: string; patch: BlobSourcePatch }): Promise<BlobSource> {
    const current = await requireBlobSource(this.deps.repository, id);
    const containerUrl = await checkedContainerUrl(this.deps, {
      ...(patch.containerUrl !== undefined ? { containerUrl: patch.containerUrl } : {}),
      ...(patch.feedId !== undefined && patch.feedId !== current.feedId ? { feedId: patch.feedId } : {}),
    });
    const next = await this.deps.repository.update(id, (stored) => {
      const now = this.deps.clock.now();
      const changed: BlobSource = { ...stored, updatedAt: now.toISOString() };
      if (patch.name !== undefined) changed.name = patch.name;
      if (containerUrl !== undefined) changed.containerUrl = containerUrl;
      if (patch.prefix !== undefined) changed.prefix = patch.prefix;
      if (patch.filePattern !== undefined) changed.filePattern = patch.filePattern;
      if (patch.feedId !== undefined) changed.feedId = patch.feedId;
      if (patch.schedule !== undefined) changed.schedule = patch.schedule;
      if (patch.status !== undefined) changed.status = patch.status;
      const rescheduled =
        patch.schedule !== undefined || changed.status !== stored.status || changed.nextRunAt === null;
      if (rescheduled) changed.nextRunAt = nextRunOf(changed, now);
      return changed;
    });
    if (next === undefined) throw notFound(`Blob source '${id}'`);
    return withLastRun(this.deps.runs, next);
  }
}
