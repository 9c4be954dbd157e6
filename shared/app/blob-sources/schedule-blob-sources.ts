import type { BlobSource } from "../../domain/blob-source";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import type { ScheduledRuns } from "../scheduled-runs/scheduled-runs";

export interface ScheduleBlobSourcesDeps {
  scheduledRuns: ScheduledRuns<BlobSource, StoredBlobSourceRun>;
}

/**
 * The timer's work: every enabled source whose `nextRunAt` has come gets a run for that due time,
 * claimed once however many timers fire; `nextRunAt` moves to the first slot after now (missed slots
 * are not caught up one by one: one run copies everything new). Runs left `running` by a lost message
 * or a lost instance are sent again (a few times, then failed). See ScheduledRuns.
 */
export class ScheduleBlobSources {
  constructor(private readonly deps: ScheduleBlobSourcesDeps) {}

  /** The runs this call claimed. */
  async execute(): Promise<StoredBlobSourceRun[]> {
    return (await this.deps.scheduledRuns.tick()).claimed;
  }
}
