import { randomBytes } from "node:crypto";
import type { BlobSource, BlobSourceCreate } from "../../domain/blob-source";
import { checkedContainerUrl, nextRunOf, type BlobSourceDefinitionDeps } from "./blob-source-rules";

export type CreateBlobSourceDeps = BlobSourceDefinitionDeps;

/**
 * System Settings › Blob sources: a customer's container, read on a schedule with the service's
 * managed identity, whose new blob versions become files of a feed. A new source is checked (its feed
 * exists, its container URL may be read) and gets its first `nextRunAt`.
 */
export class CreateBlobSource {
  constructor(private readonly deps: CreateBlobSourceDeps) {}

  async execute(input: BlobSourceCreate): Promise<BlobSource> {
    const containerUrl =
      (await checkedContainerUrl(this.deps, { containerUrl: input.containerUrl, feedId: input.feedId })) ??
      input.containerUrl;
    const now = this.deps.clock.now();
    const source: BlobSource = {
      id: `bs_${randomBytes(9).toString("hex")}`,
      name: input.name,
      containerUrl,
      prefix: input.prefix ?? null,
      filePattern: input.filePattern,
      feedId: input.feedId,
      schedule: input.schedule,
      status: input.status,
      nextRunAt: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    source.nextRunAt = nextRunOf(source, now);
    await this.deps.repository.create(source);
    return { ...source, lastRun: null };
  }
}
