import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Marks imports whose process ended mid-way (running, lease expired) as failed, with what they stored. */
export async function jobsReap(_timer: Timer, context: InvocationContext): Promise<void> {
  const reaped = await services().investments.reapJobs().run();
  if (reaped.length > 0) context.warn(JSON.stringify({ message: "abandoned import jobs marked failed", jobIds: reaped }));
}

app.timer("jobs-reap", { schedule: getConfig().JOBS_REAP_SCHEDULE, handler: jobsReap, runOnStartup: false });
