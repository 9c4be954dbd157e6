import type { Container, FeedOptions, SqlQuerySpec } from "@azure/cosmos";
import { describe, expect, it } from "vitest";
import { CosmosFxRateRepository } from "./cosmos-fx-rate-repository";
import { CosmosPositionRepository } from "./cosmos-position-repository";
import { CosmosPriceRepository } from "./cosmos-price-repository";
import { CosmosTransactionRepository } from "./cosmos-transaction-repository";

/** A container that records the queries it is given and answers each with no rows. */
function recordingContainer(): {
  container: Container;
  queries: { query: string; options: FeedOptions | undefined }[];
} {
  const queries: { query: string; options: FeedOptions | undefined }[] = [];
  const items = {
    query: (spec: SqlQuerySpec, options?: FeedOptions) => {
      queries.push({ query: spec.query, options });
      return { fetchAll: async () => ({ resources: [] }) };
    },
  };
  return { container: { items } as unknown as Container, queries };
}

// A query whose filter pins the partition key names that partition too: Cosmos DB (and the local
// stand-in) then read that partition alone instead of every partition of the container.
describe("queries that pin the partition key name the partition", () => {
  it("prices of one security", async () => {
    const { container, queries } = recordingContainer();
    await new CosmosPriceRepository(container, container).list("sec_A", {}, { page: 1, pageSize: 10 });
    expect(queries.map((q) => q.options?.partitionKey)).toEqual(["sec_A"]);
  });

  it("the latest FX rate of a pair", async () => {
    const { container, queries } = recordingContainer();
    await new CosmosFxRateRepository(container, container).latest(["EUR/USD"], "2024-01-01");
    expect(queries.map((q) => q.options?.partitionKey)).toEqual(["EUR/USD"]);
  });

  it("a portfolio's latest position snapshot", async () => {
    const { container, queries } = recordingContainer();
    await new CosmosPositionRepository(container, container).latestSnapshot("pf_1", "2024-01-01");
    expect(queries.map((q) => q.options?.partitionKey)).toEqual(["pf_1"]);
  });

  it("a portfolio's transactions, and no partition when no portfolio is given", async () => {
    const { container, queries } = recordingContainer();
    const repo = new CosmosTransactionRepository(container, container);
    await repo.list({ portfolioId: "pf_1" }, { page: 1, pageSize: 10 });
    await repo.list({}, { page: 1, pageSize: 10 });
    expect(queries.map((q) => q.options?.partitionKey)).toEqual(["pf_1", undefined]);
  });

  it("as at an instant: the prices of one security, and one portfolio's valuation, read one partition of each container", async () => {
    const { container, queries } = recordingContainer();
    const asAt = "2024-03-28T17:00:00.000Z";
    await new CosmosPriceRepository(container, container).list("sec_A", {}, { page: 1, pageSize: 10 }, asAt);
    // The current documents' partition, then the versions' (`price|<securityId>`) for the closed and the open copies.
    expect(new Set(queries.map((q) => q.options?.partitionKey))).toEqual(new Set(["sec_A", "price|sec_A"]));
    queries.length = 0;
    await new CosmosFxRateRepository(container, container).latest(["EURUSD"], "2024-01-01", asAt);
    expect(new Set(queries.map((q) => q.options?.partitionKey))).toEqual(new Set(["EURUSD", "fx|EURUSD"]));
  });
});
