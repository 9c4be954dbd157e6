/**
 * The local runtime (`npm start`): the real local components as child processes on loopback (the Cosmos
 * stand-in with its journal, Azurite), the database, containers and queues, and
 * every function of functions/ served as in Azure: HTTP on 127.0.0.1:7071, timers on their schedules.
 * Each component takes the port its setting names or, when another program holds it, a free one
 * (placement.ts); the banner and <data>/runtime.json say where everything listens.
 */
import "./start-telemetry";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, parseConfig } from "../shared/config";
import { Logger } from "../shared/logging";
import { killStale, nextMessage, startChild, waitForPort, type Child } from "./children";
import { freePort, projectRoot } from "./launch";
import { loadFunctions } from "./functions-host";
import { HttpHost } from "./http-host";
import { provision } from "./provision";
import { placeComponents } from "./placement";
import { movedNote } from "./ports";
import { loadLocalSettings } from "./settings";
import { TimerHost } from "./timer-host";
import { QueueHost } from "./queue-host";
import { StorageQueueMessageBus } from "../shared/adapters/queue/storage-queue-bus";
import { BlobHost } from "./blob-host";
import { SftpServer } from "./sftp-server";
import { ChangeFeedHost } from "./change-feed-host";
import { checkReplicaSettings, replicaReady, replicaScript, startReplicaServer } from "./replica-runtime";
import type { FrontDoorConfig } from "./event-grid/front-door";
import {
  DEVELOPMENT_ACCOUNT,
  DEVELOPMENT_ACCOUNT_KEY,
  parseStorageConnectionString,
} from "../shared/domain/storage-connection-string";

const root = projectRoot;
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const warn = (line: string): void => void process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const { values, source } = loadLocalSettings(root);
  Object.assign(process.env, values);
  const dataDir = resolve(root, process.env.LOCAL_DATA_DIR ?? ".data");
  mkdirSync(join(dataDir, "azurite"), { recursive: true });
  const runtimeFile = join(dataDir, "runtime.json");
  const cosmosScript = join(__dirname, "cosmos-server.js");
  const azuriteScript = join(__dirname, "azurite-server.js");
  // What a crashed run left holds its ports: stopped first, so only other programs' ports are "taken".
  await killStale(dataDir, "cosmos", cosmosScript);
  await killStale(dataDir, "azurite", azuriteScript);
  await killStale(dataDir, "replica", replicaScript);

  const placed = await placeComponents(process.env, parseConfig(process.env));
  for (const port of placed.moved)
    warn(`port ${port.taken} (${port.setting}) is taken by another program: the ${port.component} uses ${port.used}`);
  const config = parseConfig(process.env);
  const storage = config.STORAGE_CONNECTION_STRING ?? "";
  const cosmosPort = placed.cosmos.used;
  const ports = { blob: placed.blob.used, queue: placed.queue.used };
  const httpPort = placed.http.used;
  const sftpPort = placed.sftp.used;
  checkReplicaSettings(config);

  // Azurite's blob service listens on a port of its own; the connection string's blob port is its front
  // door's, which raises the storage events Azure raises (local/event-grid/).
  const connection = parseStorageConnectionString(storage);
  const frontDoor: FrontDoorConfig = {
    port: ports.blob,
    upstreamPort: await freePort(),
    accountName: connection.accountName ?? DEVELOPMENT_ACCOUNT,
    accountKey: connection.accountKey ?? DEVELOPMENT_ACCOUNT_KEY,
    queueEndpoint: connection.queueEndpoint ?? `http://127.0.0.1:${ports.queue}/${DEVELOPMENT_ACCOUNT}`,
  };

  const children: Child[] = [];
  const snapshotSeconds = Number(process.env.LOCAL_SNAPSHOT_SECONDS ?? 300);
  const cosmosChild = startChild(
    dataDir,
    "cosmos",
    cosmosScript,
    [String(cosmosPort), join(dataDir, "cosmos"), String(snapshotSeconds)],
    warn,
  );
  children.push(cosmosChild);
  const azuriteChild = startChild(
    dataDir,
    "azurite",
    azuriteScript,
    [
      "--front-door",
      JSON.stringify(frontDoor),
      "--blobHost",
      "127.0.0.1",
      "--blobPort",
      String(frontDoor.upstreamPort),
      "--queueHost",
      "127.0.0.1",
      "--queuePort",
      String(ports.queue),
      "--tableHost",
      "127.0.0.1",
      "--tablePort",
      String(await freePort()),
      "--location",
      join(dataDir, "azurite"),
      "--skipApiVersionCheck",
      "--loose",
      "--silent",
      "--disableTelemetry",
    ],
    warn,
  );
  children.push(azuriteChild);
  const replica = await startReplicaServer(config, dataDir, warn);
  if (replica !== undefined) children.push(replica.child);

  let stopping: Promise<void> | undefined;
  let httpHost: HttpHost | undefined;
  let timerHost: TimerHost | undefined;
  let queueHost: QueueHost | undefined;
  let blobHost: BlobHost | undefined;
  let sftpServer: SftpServer | undefined;
  let changeFeedHost: ChangeFeedHost | undefined;
  const { services } = await import("../shared/composition");
  const shutdown = (signal: string): Promise<void> => {
    stopping ??= (async () => {
      say(`\n${signal}: stopping…`);
      rmSync(runtimeFile, { force: true });
      await sftpServer?.stop();
      await httpHost?.stop();
      await timerHost?.stop();
      await queueHost?.stop();
      await blobHost?.stop();
      await changeFeedHost?.stop();
      // Closing the channel makes the Cosmos child write its final snapshot before it exits.
      await Promise.all(children.map((c) => c.stop()));
      say("stopped");
    })();
    return stopping;
  };
  process.once("SIGINT", () => {
    process.once("SIGINT", () => process.exit(130)); // a second Ctrl-C does not wait
    void shutdown("SIGINT").then(() => process.exit(0));
  });
  process.once("SIGTERM", () => void shutdown("SIGTERM").then(() => process.exit(0)));
  // Started by another process (launch.ts: the tests, the benchmarks) that went away without stopping
  // us (killed, or timed out): stop as our own children do when we go, rather than run on unowned.
  process.once("disconnect", () => void shutdown("parent gone").then(() => process.exit(0)));

  try {
    // A large store takes a while: a million documents restore in about 10 s, or about a minute once
    // from a snapshot written before snapshots kept system properties.
    const { documents: restored } = (await nextMessage(cosmosChild.process, "ready", 300_000)) as { documents: number };
    await waitForPort(ports.blob, "127.0.0.1", 15_000);
    await waitForPort(ports.queue, "127.0.0.1", 15_000);

    await provision(services().core.cosmosClient(), config.COSMOS_DATABASE, storage);
    await replicaReady(replica, services().core.cosmos().database);

    const functions = loadFunctions(root);
    const log = new Logger(config.LOG_LEVEL).with({ component: "local-runtime" });
    httpHost = new HttpHost(functions, {
      port: httpPort,
      host: "127.0.0.1",
      routePrefix: "",
      log: log.with({ host: "http" }),
    });
    const port = await httpHost.start();
    timerHost = new TimerHost(functions, log.with({ host: "timer" }));
    timerHost.start();
    queueHost = new QueueHost(functions, storage, log.with({ host: "queue" }));
    await queueHost.start();
    const bus = services().core.messageBus();
    const queues = queueHost;
    if (bus instanceof StorageQueueMessageBus) bus.onSent((queue) => queues.notify(queue));
    blobHost = new BlobHost(functions, storage, log.with({ host: "blob" }));
    await blobHost.start();
    const host = blobHost;
    sftpServer = new SftpServer({
      hostKeyPath: join(dataDir, "sftp", "host_key"),
      feeds: () => services().feeds.feedRepository(),
      storageConnectionString: storage,
      log: log.with({ host: "sftp" }),
      limits: {
        uploadsPerLogin: config.SFTP_MAX_UPLOADS_PER_LOGIN,
        uploads: config.SFTP_MAX_UPLOADS,
        authTries: config.SFTP_MAX_AUTH_TRIES,
        authBackoffSeconds: config.SFTP_AUTH_BACKOFF_SECONDS,
        authBackoffMaxSeconds: config.SFTP_AUTH_BACKOFF_MAX_SECONDS,
      },
      committed: () => host.notify(),
    });
    const sftpListening = await sftpServer.start(sftpPort, config.SFTP_HOST);
    changeFeedHost = new ChangeFeedHost(
      functions,
      (name) => services().core.cosmosClient().database(name),
      log.with({ host: "change-feed" }),
    );
    changeFeedHost.start();

    const baseUrl = `http://127.0.0.1:${port}`;
    const blobEndpoint = parseStorageConnectionString(storage).blobEndpoint ?? "";
    const queueEndpoint = parseStorageConnectionString(storage).queueEndpoint ?? "";
    say(`Investment Data Service ready on ${baseUrl} in ${Date.now() - started} ms${movedNote(placed.http)}`);
    say(`  console:  ${baseUrl}/console`);
    say(`  settings: ${source} (+ environment)`);
    say(`  data:     ${dataDir} (${restored} documents restored)`);
    say(`  cosmos:   ${config.COSMOS_ENDPOINT} (Cosmos DB stand-in)${movedNote(placed.cosmos)}`);
    say(`  blob:     ${blobEndpoint} (Azurite)${movedNote(placed.blob)}`);
    say(`  queue:    ${queueEndpoint} (Azurite)${movedNote(placed.queue)}`);
    say(`  sftp:     sftp://${config.SFTP_HOST}:${sftpListening} (one login per feed)${movedNote(placed.sftp)}`);
    if (placed.replica !== undefined)
      say(
        `  replica:  postgresql://127.0.0.1:${config.REPLICA_PORT}/${config.REPLICA_DATABASE} (PostgreSQL; logins: POST /api/v1/settings/replica/logins)${movedNote(placed.replica)}`,
      );
    say(`  functions: ${functions.map((f) => f.name).join(", ")}`);
    say("  Ctrl-C stops everything");
    // Where this runtime listens, for `npm run seed` and other local tools (removed on a clean stop).
    writeFileSync(
      runtimeFile,
      `${JSON.stringify({ pid: process.pid, baseUrl, blobEndpoint, queueEndpoint, cosmosEndpoint: config.COSMOS_ENDPOINT, sftpPort: sftpListening }, null, 2)}\n`,
    );
    process.send?.({ type: "ready", baseUrl, sftpPort: sftpListening });
  } catch (error) {
    await shutdown("start-up failed");
    throw error;
  }
}

main().catch((error: unknown) => {
  warn(
    error instanceof ConfigError
      ? error.message
      : `start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
