import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";

/** Claims the export runs that are due (each scheduled time once) and re-sends runs whose attempt died. */
export const exportsSchedule = registerTimerFunction("exports-schedule", {
  schedule: getSetting("EXPORTS_SCHEDULE"),
  handle: async (log) => {
    const result = await services().exports.scheduleExports().execute();
    if (result.claimed > 0) log.info("export runs claimed", { ...result });
  },
});
