/**
 * Child process of the local runtime: the durable Cosmos DB stand-in on loopback (local/cosmos/).
 * Snapshots periodically and when the runtime goes away (it closes our IPC channel).
 *
 * argv: <port> <data dir> <snapshot seconds>. IPC out: { type: "ready", documents }.
 */
import { startDurableStandIn } from "./cosmos/durable-stand-in";

async function main(): Promise<void> {
  const [portText, dir, snapshotSecondsText] = process.argv.slice(2);
  if (portText === undefined || dir === undefined)
    throw new Error("usage: cosmos-server <port> <data dir> [snapshot seconds]");
  const snapshotSeconds = Number(snapshotSecondsText ?? 300);
  const standIn = await startDurableStandIn({ port: Number(portText), dir });
  process.send?.({ type: "ready", documents: standIn.restored });

  let last = Date.now();
  let writing = false;
  const timer = setInterval(() => {
    const bytes = standIn.store.unsnapshottedBytes;
    if (writing || !(bytes > 64 * 1024 * 1024 || (bytes > 0 && Date.now() - last > snapshotSeconds * 1000))) return;
    // Written between requests: a large store's snapshot takes seconds, which must not stall them.
    writing = true;
    standIn
      .snapshotInBackground()
      .catch((error: unknown) =>
        process.stderr.write(
          `the Cosmos stand-in's snapshot failed (the journal keeps every write; retried later): ${error instanceof Error ? error.message : String(error)}\n`,
        ),
      )
      .finally(() => {
        writing = false;
        last = Date.now();
      });
  }, 5000);
  timer.unref();
  // The runtime stops us by closing the channel (also when it crashed): compact, then exit. Signals
  // sent to the whole process group (Ctrl-C, a service manager) must not end us before that.
  process.on("disconnect", () => {
    try {
      standIn.snapshot();
    } finally {
      process.exit(0);
    }
  });
  process.on("SIGTERM", () => {});
  process.on("SIGINT", () => {});
}

main().catch((error: unknown) => {
  process.stderr.write(
    `the Cosmos stand-in did not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
