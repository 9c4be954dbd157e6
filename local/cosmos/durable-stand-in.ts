/**
 * The Cosmos stand-in (@vercel/cosmosdb-server) made durable and partition-aware: restored from its
 * journal store before it listens, writes journalled, queries that name a partition scoped to it.
 * The local runtime's child process (local/cosmos-server.ts) runs one; tests run one in-process.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpServer } from "@vercel/cosmosdb-server";
import query from "@zeit/cosmosdb-query";
import { countDocuments } from "./journal-entries";
import { JournalStore } from "./journal-store";
import { installArrayContains } from "./array-contains";
import { installPartitionIndex } from "./partition-index";
import { expireDocuments } from "./ttl-expiry";
import { changeFeedHandler, installChangeFeed, lsnOf } from "./change-feed";
import { journalling, type RequestHandler } from "./request-journal";
import { captureAccounts, standInClasses, type StandInAccount } from "./stand-in-internals";

export interface DurableStandIn {
  server: Server;
  port: number;
  /** Documents restored at start. */
  restored: number;
  account: StandInAccount;
  store: JournalStore;
  /** Writes a snapshot (compacting the journal); returns the documents written. */
  snapshot(): number;
  /** The same, a slice at a time between requests (see JournalStore.snapshotInBackground). */
  snapshotInBackground(): Promise<number>;
  /** Final snapshot, then stops listening. */
  close(): Promise<void>;
}

let currentAccount: (() => StandInAccount) | undefined;

/** Version and shape checks, the partition index and account capture: once per process. */
function prepare(): () => StandInAccount {
  if (currentAccount === undefined) {
    const { accountModule, Documents } = standInClasses();
    assertQueryEnginePatched();
    installPartitionIndex(Documents);
    installChangeFeed(Documents);
    installArrayContains(require("@zeit/cosmosdb-query/lib/builtin-functions") as Record<string, unknown>);
    currentAccount = captureAccounts(accountModule);
  }
  return currentAccount;
}

/**
 * Without patches/@zeit+cosmosdb-query+*.patch (applied by `patch-package` on install) every query over
 * a container copies its rows once per document: fail at start rather than stall at 20,000 documents.
 */
function assertQueryEnginePatched(): void {
  if (query("SELECT * FROM c").code.includes("[...$")) {
    throw new Error(
      "@zeit/cosmosdb-query is not patched (its FROM clause is quadratic); run `npm ci` so that patch-package applies patches/",
    );
  }
}

export async function startDurableStandIn(options: {
  port: number;
  dir: string;
  host?: string;
}): Promise<DurableStandIn> {
  const account = prepare();
  const server = createHttpServer({ keepAlive: true });
  const [standIn] = server.listeners("request") as RequestHandler[];
  if (standIn === undefined) throw new Error("the Cosmos stand-in registered no request handler");
  const store = new JournalStore(options.dir);
  server.removeAllListeners("request");
  // Each write's change-feed position and _ts are journalled with it; change-feed reads are answered here.
  const versionOf = (db: string, coll: string, doc: Record<string, unknown>): { lsn?: number; ts?: number } => {
    const lsn = lsnOf(account().database(db).collection(coll).documents, doc._rid);
    return { ...(lsn !== undefined ? { lsn } : {}), ...(typeof doc._ts === "number" ? { ts: doc._ts } : {}) };
  };
  server.on("request", changeFeedHandler(account, journalling(standIn, store, versionOf)));
  server.keepAliveTimeout = 65_000;
  // The stand-in builds its account when it starts listening. The restore runs synchronously in that
  // same event, so no request is served from a half-restored state.
  const { state, restored } = await new Promise<{ state: StandInAccount; restored: number }>((resolve, reject) =>
    server.listen(options.port, options.host ?? "127.0.0.1", () => {
      try {
        const current = account();
        const { snapshotIsCurrent } = store.restore(current);
        resolve({ state: current, restored: snapshotIsCurrent ? countDocuments(current) : store.snapshot(current) });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    }),
  );
  // Cosmos DB expires documents past their time to live within moments; the stand-in checks every second.
  const expiry = setInterval(() => {
    const deleted = expireDocuments(state, Math.floor(Date.now() / 1000));
    if (deleted.length > 0) store.append(deleted);
  }, 1000);
  expiry.unref();
  return {
    server,
    port: (server.address() as AddressInfo).port,
    restored,
    account: state,
    store,
    snapshot: () => store.snapshot(state),
    snapshotInBackground: () => store.snapshotInBackground(state),
    async close() {
      clearInterval(expiry);
      store.snapshot(state);
      store.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
