/**
 * Child process: Azurite (blob and queue, plus its table service on a spare port) with this runtime's
 * arguments. It exits when the local runtime that started it goes away, even if that was killed.
 */
process.on("disconnect", () => {
  // Azurite's shutdown writes its blob and queue metadata (saved otherwise every 5 s), but none of its
  // timers keeps the process alive meanwhile: this one does, until its three services say they closed
  // (at most 10 s), so a blob committed just before the runtime stopped or was killed is not lost.
  // A killed runtime no longer reads our output: writing it must not end the process (EPIPE).
  process.stdout.on("error", () => undefined);
  process.stderr.on("error", () => undefined);
  const closed = new Set<string>();
  const print = console.log.bind(console);
  console.log = (...args: unknown[]): void => {
    const line = String(args[0]);
    if (/^Azurite (Blob|Queue|Table) service successfully closed/.test(line)) closed.add(line);
    print(...args);
    if (closed.size === 3) process.exit(0);
  };
  setTimeout(() => process.exit(0), 10_000);
  process.kill(process.pid, "SIGTERM");
});
// Ctrl-C reaches the whole process group; the parent decides when we stop.
process.on("SIGINT", () => {});
require("azurite/dist/src/azurite.js");
