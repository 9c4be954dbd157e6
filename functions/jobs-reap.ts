import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Marks imports whose process ended mid-way (running, lease expired) as failed, with what they stored. */
export const jobsReap = registerTimerFunction("jobs-reap", {
  schedule: getSetting("JOBS_REAP_SCHEDULE"),
  handle: async (log) => {
    const reaped = await services().investments.reapAbandonedJobs().execute();
    if (reaped.length > 0) log.warn("abandoned import jobs marked failed", { jobIds: reaped });
  },
});
