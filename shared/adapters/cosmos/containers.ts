/** The Cosmos DB containers of one deployment and their partition key paths (mirrored in infra/). */
export const containerDefinitions = [
  { id: "portfolios", partitionKey: "/id" },
  { id: "securities", partitionKey: "/id" },
  { id: "prices", partitionKey: "/securityId" },
  { id: "fxRates", partitionKey: "/pair" },
  { id: "positions", partitionKey: "/portfolioId" },
  { id: "transactions", partitionKey: "/portfolioId" },
  { id: "jobs", partitionKey: "/id" },
  { id: "exceptions", partitionKey: "/id" },
  { id: "settings", partitionKey: "/kind" },
  { id: "events", partitionKey: "/id" },
  // A webhook's delivery log is one partition.
  { id: "deliveries", partitionKey: "/webhookId" },
  { id: "counters", partitionKey: "/key" },
  // Runs of exports and blob sources, the claims of scheduled times and the blob versions seen: one partition per owner.
  { id: "runs", partitionKey: "/ownerId" },
] as const;

export type ContainerName = (typeof containerDefinitions)[number]["id"];
