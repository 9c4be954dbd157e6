import { randomBytes } from "node:crypto";
import { parseContainerUrl, type ServiceStorage } from "../../domain/blob-source-container-url";
import { nextRunAfter, type BlobSource, type BlobSourceCreate, type BlobSourcePatch } from "../../domain/blob-source";
import type { BlobSourceRun } from "../../domain/blob-source-run";
import { AppError, notFound, type ErrorDetail } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { paginationOf, type Pagination } from "../../domain/pagination";
import type { Clock } from "../../ports/clock";
import type { FeedRepository } from "../../ports/feed-repository";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import type { ScheduledRunStore } from "../../ports/scheduled-runs";
import type { SettingsRepository } from "../../ports/settings-repository";
import type { ScheduledRuns } from "../scheduled-runs/scheduled-runs";
import { newRun, publicRun } from "./blob-source-runs";

/** Stored blob sources (System Settings → Blob sources). */
export type BlobSourceRepository = SettingsRepository<BlobSource>;

export interface BlobSourcesDeps {
  repository: BlobSourceRepository;
  feeds: Pick<FeedRepository, "get">;
  runs: ScheduledRunStore<StoredBlobSourceRun>;
  scheduledRuns: ScheduledRuns<BlobSource, StoredBlobSourceRun>;
  clock: Clock;
  /** The service's own storage (never a source) and the emulator it runs on, if it does (its other containers may then be sources). */
  storage: ServiceStorage;
}

/**
 * System Settings › Blob sources: a customer's container, read on a schedule with the service's
 * managed identity, whose new blob versions become files of a feed. Runs go through the
 * `blob-sources` queue; `run` starts one now.
 */
export class BlobSources {
  constructor(private readonly deps: BlobSourcesDeps) {}

  async create(input: BlobSourceCreate): Promise<BlobSource> {
    const containerUrl = (await this.check({ containerUrl: input.containerUrl, feedId: input.feedId })) ?? input.containerUrl;
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
    return source;
  }

  async list(page: number, pageSize: number): Promise<{ items: BlobSource[]; pagination: Pagination }> {
    const result = await this.deps.repository.list(page, pageSize);
    return { items: result.items, pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  async get(id: string): Promise<BlobSource> {
    const source = await this.deps.repository.get(id);
    if (source === undefined) throw notFound(`Blob source '${id}'`);
    return source;
  }

  /** Given fields replace the stored ones; a new schedule, or enabling, computes `nextRunAt` from now; disabling clears it. */
  async update(id: string, patch: BlobSourcePatch): Promise<BlobSource> {
    const current = await this.get(id);
    const containerUrl = await this.check({
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
      const rescheduled = patch.schedule !== undefined || changed.status !== stored.status || changed.nextRunAt === null;
      if (rescheduled) changed.nextRunAt = nextRunOf(changed, now);
      return changed;
    });
    if (next === undefined) throw notFound(`Blob source '${id}'`);
    return next;
  }

  /** The source goes; its run history stays in `runs` (nothing else refers to it). */
  async delete(id: string): Promise<void> {
    if (!(await this.deps.repository.delete(id))) throw notFound(`Blob source '${id}'`);
  }

  /** A manual run, now (also for a disabled source): recorded `running`, performed from the `blob-sources` queue. */
  async runNow(id: string): Promise<BlobSourceRun> {
    const source = await this.get(id);
    const run = await this.deps.scheduledRuns.start((claim) => newRun(`bsr_${randomBytes(12).toString("hex")}`, source.id, "manual", claim.startedAt, claim));
    if (run === undefined) throw new Error("a random run id was claimed already");
    return publicRun(run);
  }

  async runs(id: string, request: PageRequest): Promise<CursorPage<BlobSourceRun>> {
    await this.get(id);
    const page = await this.deps.runs.list(id, request);
    return { ...page, items: page.items.map(publicRun) };
  }

  /** The URL the source will use (normalised), after checking the URL and the feed; one 422 names every problem. */
  private async check(fields: { containerUrl?: string; feedId?: string }): Promise<string | undefined> {
    const details: ErrorDetail[] = [];
    let url: string | undefined;
    if (fields.containerUrl !== undefined) {
      const location = parseContainerUrl(fields.containerUrl, this.deps.storage);
      if ("problem" in location) details.push({ field: "containerUrl", message: location.problem });
      else url = location.url;
    }
    if (fields.feedId !== undefined && (await this.deps.feeds.get(fields.feedId)) === undefined) {
      details.push({ field: "feedId", message: `no feed '${fields.feedId}'` });
    }
    if (details.length > 0) throw new AppError("VALIDATION_ERROR", "The request body failed validation", { details });
    return url;
  }
}

/** The next scheduled run of an enabled source after `now`; null while disabled. */
function nextRunOf(source: Pick<BlobSource, "status" | "schedule">, now: Date): string | null {
  if (source.status !== "enabled") return null;
  return nextRunAfter(source.schedule, now)?.toISOString() ?? null;
}
