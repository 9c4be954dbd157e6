import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Starts the blob sources whose nextRunAt has come: each due time claimed once, its run queued on `blob-sources`. */
export async function blobSourcesSchedule(_timer: Timer, context: InvocationContext): Promise<void> {
  const runs = await services().blobSources.scheduleBlobSources().run();
  if (runs.length > 0) context.log(JSON.stringify({ message: "blob source runs queued", runs: runs.map((r) => ({ blobSourceId: r.blobSourceId, runId: r.id, scheduledFor: r.scheduledFor })) }));
}

app.timer("blob-sources-schedule", { schedule: getConfig().BLOB_SOURCES_SCHEDULE, handler: blobSourcesSchedule, runOnStartup: false });
