import { randomBytes } from "node:crypto";
import type { BlobSource } from "../../domain/blob-source";
import type { BlobSourceRun } from "../../domain/blob-source-run";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import type { ScheduledRuns } from "../scheduled-runs/scheduled-runs";
import { newRun, publicRun } from "./blob-source-runs";
import { requireBlobSource, type BlobSourcesDeps } from "./blob-source-rules";

export interface RunBlobSourceNowDeps extends BlobSourcesDeps {
  scheduledRuns: ScheduledRuns<BlobSource, StoredBlobSourceRun>;
}

/** A manual run, now (also for a disabled source): recorded `running`, performed from the `blob-sources` queue. */
export class RunBlobSourceNow {
  constructor(private readonly deps: RunBlobSourceNowDeps) {}

  async execute(id: string): Promise<BlobSourceRun> {
    const source = await requireBlobSource(this.deps.repository, id);
    const run = await this.deps.scheduledRuns.start((claim) =>
      newRun(`bsr_${randomBytes(12).toString("hex")}`, source.id, "manual", claim.startedAt, claim),
    );
    if (run === undefined) throw new Error("a random run id was claimed already");
    return publicRun(run);
  }
}
