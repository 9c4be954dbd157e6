import { notFound } from "../../domain/errors";
import type { Job } from "../../domain/job";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { JobFilter, JobRepository } from "../../ports/investment-repositories";

/** Reads of refresh jobs. */
export class JobQueries {
  constructor(private readonly jobs: JobRepository) {}

  async get(id: string): Promise<Job> {
    const job = await this.jobs.get(id);
    if (job === undefined) throw notFound(`Job '${id}'`);
    return job;
  }

  list(filter: JobFilter, request: PageRequest): Promise<CursorPage<Job>> {
    return this.jobs.list(filter, request);
  }
}
