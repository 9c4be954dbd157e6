import type { Container } from "@azure/cosmos";
import type { Job } from "../../domain/job";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { JobFilter, JobRepository } from "../../ports/investment-repositories";
import { readDocument, updateDocument } from "./conditional-update";
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

/** Refresh jobs in the `jobs` container (partition /id), newest first. */
export class CosmosJobRepository implements JobRepository {
  constructor(private readonly container: Container) {}

  async put(job: Job): Promise<void> {
    await this.container.items.upsert(toDoc(job));
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
