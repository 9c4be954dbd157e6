import { notFound } from "../../domain/errors";
import type { Job } from "../../domain/job";
import type { InvestmentDeps } from "./investment-deps";

/** One refresh job. */
export class GetJob {
  constructor(private readonly deps: Pick<InvestmentDeps, "jobs">) {}

  async execute(id: string): Promise<Job> {
    const job = await this.deps.jobs.get(id);
    if (job === undefined) throw notFound(`Job '${id}'`);
    return job;
  }
}
