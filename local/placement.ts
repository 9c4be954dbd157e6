/**
 * Where the local runtime's components listen: the port each one's setting names (the README's
 * defaults: HTTP 7071, Cosmos stand-in 8081, Azurite blob 10000 and queue 10001, SFTP 2222, replica
 * 5433) or, when another program holds it, a free one. The process environment is rewritten to the
 * ports used before the service reads its configuration, so everything it shows points where it listens.
 */
import { ConfigError, type Config } from "../shared/config";
import { choosePorts, storageOnPorts, type ChosenPort } from "./ports";
import { storagePorts } from "./provision";
import { runsReplica } from "./replica-runtime";

export interface Placement {
  http: ChosenPort;
  cosmos: ChosenPort;
  blob: ChosenPort;
  queue: ChosenPort;
  sftp: ChosenPort;
  /** Only when this runtime runs the replica's PostgreSQL server. */
  replica?: ChosenPort;
  /** The components moved off a port another program holds. */
  moved: ChosenPort[];
}

export async function placeComponents(env: NodeJS.ProcessEnv, config: Config): Promise<Placement> {
  const storage = config.STORAGE_CONNECTION_STRING;
  if (storage === undefined)
    throw new ConfigError("Invalid configuration:\n  STORAGE_CONNECTION_STRING: is required by the local runtime");
  const cosmosUrl = new URL(config.COSMOS_ENDPOINT);
  if (cosmosUrl.protocol !== "http:")
    throw new ConfigError(
      "Invalid configuration:\n  COSMOS_ENDPOINT: the local runtime serves the Cosmos stand-in over http://127.0.0.1:<port>",
    );
  const storageAt = storagePorts(storage);
  // LOCAL_SFTP_PORT places the drop elsewhere than the SFTP_PORT feeds show (the tests: 0, a free port).
  const sftpSetting = env.LOCAL_SFTP_PORT !== undefined ? "LOCAL_SFTP_PORT" : "SFTP_PORT";
  const [http, cosmos, blob, queue, sftp, replica] = await choosePorts([
    { component: "Functions host", setting: "PORT", port: Number(env.PORT ?? 7071) },
    { component: "Cosmos DB stand-in", setting: "COSMOS_ENDPOINT", port: Number(cosmosUrl.port || 80) },
    { component: "Azurite blob service", setting: "STORAGE_CONNECTION_STRING BlobEndpoint", port: storageAt.blob },
    { component: "Azurite queue service", setting: "STORAGE_CONNECTION_STRING QueueEndpoint", port: storageAt.queue },
    { component: "SFTP drop", setting: sftpSetting, port: Number(env.LOCAL_SFTP_PORT ?? config.SFTP_PORT) },
    ...(runsReplica(config)
      ? [{ component: "replica's PostgreSQL server", setting: "REPLICA_PORT", port: config.REPLICA_PORT }]
      : []),
  ]);
  if (http === undefined || cosmos === undefined || blob === undefined || queue === undefined || sftp === undefined)
    throw new Error("a component without a port");

  env.PORT = String(http.used);
  cosmosUrl.port = String(cosmos.used);
  env.COSMOS_ENDPOINT = cosmosUrl.origin;
  if (blob.taken !== undefined || queue.taken !== undefined)
    env.STORAGE_CONNECTION_STRING = storageOnPorts(storage, { blob: blob.used, queue: queue.used });
  if (sftpSetting === "SFTP_PORT") env.SFTP_PORT = String(sftp.used);
  if (replica !== undefined) env.REPLICA_PORT = String(replica.used);
  const moved = [http, cosmos, blob, queue, sftp, replica].filter(
    (port): port is ChosenPort => port?.taken !== undefined,
  );
  return { http, cosmos, blob, queue, sftp, ...(replica === undefined ? {} : { replica }), moved };
}
