import { CosmosClient, type Container, type Database } from "@azure/cosmos";
import type { TokenCredential } from "@azure/identity";
import type { Config } from "../../config";
import { containerDefinitions, type ContainerName } from "./containers";
import { guardContainer } from "./cosmos-errors";

/** Builds the one Cosmos client: key auth for the emulator, the managed identity in Azure. */
export function createCosmosClient(config: Config, credential: () => TokenCredential): CosmosClient {
  return new CosmosClient({
    endpoint: config.COSMOS_ENDPOINT,
    ...(config.COSMOS_KEY !== undefined ? { key: config.COSMOS_KEY } : { aadCredentials: credential() }),
    connectionPolicy: { enableEndpointDiscovery: config.COSMOS_ENDPOINT_DISCOVERY },
  });
}

/** Typed access to the deployment's containers. */
export class CosmosDatabase {
  readonly database: Database;

  constructor(client: CosmosClient, databaseId: string) {
    this.database = client.database(databaseId);
  }

  /** The container behind the adapters' error boundary (see guardContainer). */
  container(name: ContainerName): Container {
    return guardContainer(this.database.container(name));
  }
}

/** Creates the database and every container if missing (local runtime and tests; Bicep does it in Azure). */
export async function ensureDatabase(client: CosmosClient, databaseId: string): Promise<void> {
  const { database } = await client.databases.createIfNotExists({ id: databaseId });
  for (const def of containerDefinitions) {
    await database.containers.createIfNotExists({
      id: def.id,
      partitionKey: { paths: [def.partitionKey] },
      ...("defaultTtl" in def ? { defaultTtl: def.defaultTtl } : {}),
    });
  }
}
