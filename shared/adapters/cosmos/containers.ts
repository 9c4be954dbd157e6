/**
 * The Cosmos DB containers of one deployment and their partition key paths (mirrored in infra/).
 * `defaultTtl: -1` turns time to live on without a default: only documents that set `ttl` expire.
 */
export const containerDefinitions = [
  { id: "portfolios", partitionKey: "/id" },
  { id: "securities", partitionKey: "/id" },
  { id: "prices", partitionKey: "/securityId" },
  { id: "fxRates", partitionKey: "/pair" },
  { id: "positions", partitionKey: "/portfolioId" },
  { id: "transactions", partitionKey: "/portfolioId" },
  // Closed versions of investment records, one partition per kind and record partition (`price|<securityId>`).
  { id: "versions", partitionKey: "/key" },
  { id: "jobs", partitionKey: "/id" },
  { id: "exceptions", partitionKey: "/id" },
  { id: "settings", partitionKey: "/kind" },
  // The settings audit trail: an item's own entries are one partition (`<type>|<id>`).
  { id: "audit", partitionKey: "/resourceKey" },
  { id: "events", partitionKey: "/id" },
  // A webhook's delivery log is one partition.
  { id: "deliveries", partitionKey: "/webhookId" },
  // Rate-limit windows and idempotency records, each expiring by its own `ttl`.
  { id: "counters", partitionKey: "/key", defaultTtl: -1 },
  // Runs of exports and blob sources, the claims of scheduled times and the blob versions seen: one partition per owner.
  { id: "runs", partitionKey: "/ownerId" },
  // Change-feed checkpoints of the SQL replica's triggers (the Functions host's lease documents in Azure).
  { id: "leases", partitionKey: "/id" },
] as const;

export type ContainerName = (typeof containerDefinitions)[number]["id"];
