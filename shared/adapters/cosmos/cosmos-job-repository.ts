import type { Container } from "@azure/cosmos";
import type { Job } from "../../domain/job";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { JobFilter, JobRepository } from "../../ports/investment-repositories";
import { bulkRead, refKey } from "./bulk";
import { readDocument, updateDocument } from "./conditional-update";
import { CosmosLatestPointers } from "./cosmos-latest-pointers";
import { stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";

interface JobDoc extends Job {
  docType: "job";
  sortKey: string;
  _etag?: string;
}

const toDoc = (job: Job): JobDoc => ({ ...job, docType: "job", sortKey: `${job.startedAt}|${job.id}` });
const toJob = (doc: JobDoc): Job => {
  const { docType: _d, sortKey: _s, _etag: _e, ...job } = stripSystem(doc);
  // Jobs stored before leases (or removed counts) existed have none.
  return {
    ...job,
    counts: { ...job.counts, removed: (job.counts as Partial<Job["counts"]>).removed ?? 0 },
    leaseUntil: job.leaseUntil ?? null,
  };
};

/** The pointer kind of a feed's newest job (in the `runs` container, partition = the feed). */
const FEED_JOB = "feed-job";

/** Refresh jobs in the `jobs` container (partition /id), newest first; each feed's newest job is pointed at from `runs`. */
export class CosmosJobRepository implements JobRepository {
  private readonly pointers: CosmosLatestPointers;

  constructor(
    private readonly container: Container,
    /** The `runs` container, where each feed's pointer to its newest job lives (not `jobs`, which the replica projects). */
    runs: Container,
  ) {
    this.pointers = new CosmosLatestPointers(runs);
  }

  async put(job: Job): Promise<void> {
    const doc = toDoc(job);
    await this.container.items.upsert(doc);
    // After the job: a pointer never names a job that is not there.
    if (job.feedId !== null) await this.pointers.advance(job.feedId, FEED_JOB, { id: job.id, sortKey: doc.sortKey });
  }

  async latestOfFeeds(feedIds: readonly string[]): Promise<Map<string, Job>> {
    const pointers = await this.pointers.read(FEED_JOB, feedIds);
    const named = [...pointers].flatMap(([feedId, jobId]) => (jobId === null ? [] : [{ feedId, jobId }]));
    const found = await bulkRead<JobDoc>(
      this.container,
      named.map((n) => ({ id: n.jobId, partitionKey: n.jobId })),
    );
    const latest = new Map<string, Job>();
    for (const n of named) {
      const doc = found.get(refKey({ id: n.jobId, partitionKey: n.jobId }));
      if (doc !== undefined && doc.docType === "job") latest.set(n.feedId, toJob(doc));
    }
    // Feeds whose jobs began before pointers existed: looked up once each, and remembered.
    for (const feedId of new Set(feedIds)) {
      if (pointers.has(feedId)) continue;
      const { resources } = await this.container.items
        .query<JobDoc>({
          query: "SELECT TOP 1 * FROM c WHERE c.docType = 'job' AND c.feedId = @feedId ORDER BY c.sortKey DESC",
          parameters: [{ name: "@feedId", value: feedId }],
        })
        .fetchAll();
      const newest = resources[0];
      await this.pointers.fill(
        feedId,
        FEED_JOB,
        newest === undefined ? null : { id: newest.id, sortKey: newest.sortKey },
      );
      if (newest !== undefined) latest.set(feedId, toJob(newest));
    }
    return latest;
  }

  async get(id: string): Promise<Job | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : toJob(doc);
  }

  async update(id: string, change: (current: Job) => Job | undefined): Promise<Job | undefined> {
    const stored = await updateDocument<JobDoc>(
      this.container,
      { id, partitionKey: id, what: `Job '${id}'` },
      () => this.read(id),
      (doc) => {
        const next = change(toJob(doc));
        return next === undefined ? undefined : toDoc(next);
      },
    );
    return stored === undefined ? undefined : toJob(stored);
  }

  private read(id: string): Promise<JobDoc | undefined> {
    return readDocument<JobDoc>(this.container, id, id, (doc) => doc.docType === "job");
  }

  async list(filter: JobFilter, request: PageRequest): Promise<CursorPage<Job>> {
    const { where, parameters } = equalityFilters({
      status: filter.status,
      dataType: filter.dataType,
      source: filter.source,
      feedId: filter.feedId,
    });
    const page = await pagedQuery<JobDoc>(
      this.container,
      { where: ["c.docType = 'job'", ...where], parameters, sortField: "sortKey", descending: true },
      request,
    );
    return { ...page, items: page.items.map(toJob) };
  }

  async abandoned(now: string, limit: number): Promise<Job[]> {
    const { resources } = await this.container.items
      .query<JobDoc>({
        query:
          "SELECT TOP @n * FROM c WHERE c.docType = 'job' AND c.status = 'running' AND IS_STRING(c.leaseUntil) AND c.leaseUntil < @now",
        parameters: [
          { name: "@n", value: limit },
          { name: "@now", value: now },
        ],
      })
      .fetchAll();
    return resources.map(toJob);
  }
}
