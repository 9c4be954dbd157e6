import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Starts the blob sources whose nextRunAt has come: each due time claimed once, its run queued on `blob-sources`. */
export const blobSourcesSchedule = registerTimerFunction("blob-sources-schedule", {
  schedule: getSetting("BLOB_SOURCES_SCHEDULE"),
  handle: async (log) => {
    const runs = await services().blobSources.scheduleBlobSources().execute();
    if (runs.length > 0)
      log.info("blob source runs queued", {
        runs: runs.map((r) => ({ blobSourceId: r.blobSourceId, runId: r.id, scheduledFor: r.scheduledFor })),
      });
  },
});
