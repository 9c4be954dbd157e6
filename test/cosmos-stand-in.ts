import { CosmosClient } from "@azure/cosmos";
import { createHttpServer } from "@vercel/cosmosdb-server";
import type { AddressInfo } from "node:net";
import { CosmosDatabase, ensureDatabase } from "../shared/adapters/cosmos/cosmos-client";

/** A Cosmos stand-in in this process on a free loopback port, with the deployment's containers. */
export async function startCosmos(): Promise<{ db: CosmosDatabase; client: CosmosClient; endpoint: string; stop(): Promise<void> }> {
  const server = createHttpServer({ keepAlive: true });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new CosmosClient({ endpoint, key: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==", connectionPolicy: { enableEndpointDiscovery: false } });
  await ensureDatabase(client, "unit");
  return {
    db: new CosmosDatabase(client, "unit"),
    client,
    endpoint,
    stop: async () => {
      client.dispose();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
