import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { registerQueueFunction } from "../shared/triggers/queue-function";

/**
 * Performs one attempt of the export run an `exports` message names. A failed attempt schedules the
 * next itself; throwing (the store unreachable) makes the queue deliver the message again.
 */
export const exportsRun = registerQueueFunction("exports-run", {
  queueName: "exports",
  schema: z.object({ exportId: idParam(100), runId: idParam(100) }),
  handle: async (message) => {
    await services().exports.runExport().execute(message);
  },
});
