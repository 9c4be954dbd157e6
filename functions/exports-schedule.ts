import { app, type InvocationContext, type Timer } from "@azure/functions";
import { getConfig } from "../shared/config";
import { services } from "../shared/composition";

/** Claims the export runs that are due (each scheduled time once) and re-sends runs whose attempt died. */
export async function exportsSchedule(_timer: Timer, context: InvocationContext): Promise<void> {
  const result = await services().exports.scheduleExports().tick();
  if (result.claimed > 0) context.log(JSON.stringify({ message: "export runs claimed", ...result }));
}

app.timer("exports-schedule", { schedule: getConfig().EXPORTS_SCHEDULE, handler: exportsSchedule, runOnStartup: false });
