import type { Job } from "../../domain/job";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { JobFilter } from "../../ports/investment-repositories";
import type { InvestmentDeps } from "./investment-deps";

/** A page of refresh jobs. */
export class ListJobs {
  constructor(private readonly deps: Pick<InvestmentDeps, "jobs">) {}

  execute({ filter, page }: { filter: JobFilter; page: PageRequest }): Promise<CursorPage<Job>> {
    return this.deps.jobs.list(filter, page);
  }
}
