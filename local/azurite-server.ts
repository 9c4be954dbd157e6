/**
 * Child process: Azurite (blob and queue, plus its table service on a spare port) with this runtime's
 * arguments, behind the storage account's front door (event-grid/front-door.ts: the blob endpoint the
 * runtime's connection string names, raising the storage events Azure raises). Arguments: `--front-door
 * <JSON of FrontDoorConfig>`, then Azurite's own. It exits when the local runtime that started it goes
 * away, even if that was killed.
 */
import { waitForPort } from "./children";
import { StorageFrontDoor, type FrontDoorConfig } from "./event-grid/front-door";

const flag = process.argv.indexOf("--front-door");
if (flag < 0) throw new Error("azurite-server: --front-door <config> is required");
const config = JSON.parse(process.argv[flag + 1] ?? "") as FrontDoorConfig;
// Azurite reads process.argv itself: it sees only its own arguments.
process.argv.splice(flag, 2);

const frontDoor = new StorageFrontDoor({
  upstreamPort: config.upstreamPort,
  accountName: config.accountName,
  accountKey: config.accountKey,
  queueEndpoint: config.queueEndpoint,
  log: (line) => void process.stderr.write(`${line}\n`),
});

process.on("disconnect", () => {
  // Azurite's shutdown writes its blob and queue metadata (saved otherwise every 5 s), but none of its
  // timers keeps the process alive meanwhile: this one does, until its three services say they closed
  // (at most 10 s after the front door), so a blob committed just before the runtime stopped or was
  // killed is not lost. The front door closes first: the requests in flight finish and raise their events.
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
  void frontDoor.stop().finally(() => {
    setTimeout(() => process.exit(0), 10_000);
    process.kill(process.pid, "SIGTERM");
  });
});
// Ctrl-C reaches the whole process group; the parent decides when we stop.
process.on("SIGINT", () => {});
require("azurite/dist/src/azurite.js");
// The front door opens once Azurite answers behind it, so whoever waits for the port waits for both.
void waitForPort(config.upstreamPort, "127.0.0.1", 60_000)
  .then(() => frontDoor.listen(config.port, "127.0.0.1"))
  .catch((error: unknown) => {
    process.stderr.write(
      `storage front door could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
