/**
 * Child process: Azurite (blob and queue, plus its table service on a spare port) with this runtime's
 * arguments. It exits when the local runtime that started it goes away, even if that was killed.
 */
process.on("disconnect", () => {
  process.kill(process.pid, "SIGTERM");
  setTimeout(() => process.exit(0), 3000).unref();
});
// Ctrl-C reaches the whole process group; the parent decides when we stop.
process.on("SIGINT", () => {});
require("azurite/dist/src/azurite.js");
