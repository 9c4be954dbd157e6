import { BulkOperationType, CosmosClient, type Container } from "@azure/cosmos";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDurableStandIn, type DurableStandIn } from "./durable-stand-in";
import { queryScan } from "./partition-index";

const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

interface Price {
  id: string;
  securityId: string;
  docType: string;
  date: string;
  price: number;
}

const price = (securityId: string, day: number, value = day): Price => ({
  id: `2024-01-${String(day).padStart(2, "0")}|close|test`,
  securityId,
  docType: "price",
  date: `2024-01-${String(day).padStart(2, "0")}`,
  price: value,
});

describe("the durable stand-in scopes a query to the partition the request names", () => {
  const dir = mkdtempSync(join(tmpdir(), "ids-partition-"));
  let standIn: DurableStandIn;
  let client: CosmosClient;
  let prices: Container;
  /** What each partition should hold, kept beside every write the tests make. */
  const expected = new Map<string, Map<string, Price>>();

  const connect = async (): Promise<void> => {
    client = new CosmosClient({
      endpoint: `http://127.0.0.1:${standIn.port}`,
      key: KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: "unit" });
    ({ container: prices } = await database.containers.createIfNotExists({
      id: "prices",
      partitionKey: { paths: ["/securityId"] },
    }));
  };
  const remember = (p: Price): void => {
    const partition = expected.get(p.securityId) ?? new Map<string, Price>();
    expected.set(p.securityId, partition.set(p.id, p));
  };
  const rows = async (securityId: string): Promise<Price[]> => {
    // No filter on the partition key in the query: only the named partition may answer it.
    const { resources } = await prices.items
      .query<Price>("SELECT c.id, c.securityId, c.docType, c.date, c.price FROM c ORDER BY c.id", {
        partitionKey: securityId,
      })
      .fetchAll();
    return resources;
  };
  const expectPartitions = async (): Promise<void> => {
    for (const [securityId, docs] of expected) {
      expect(await rows(securityId)).toEqual([...docs.values()].sort((a, b) => (a.id < b.id ? -1 : 1)));
    }
  };

  beforeAll(async () => {
    standIn = await startDurableStandIn({ port: 0, dir });
    await connect();
    for (const securityId of ["A", "B", "C"]) {
      for (let day = 1; day <= 20; day++) {
        const p = price(securityId, day);
        await prices.items.create(p);
        remember(p);
      }
    }
  });

  afterAll(async () => {
    client.dispose();
    await standIn.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("returns exactly the partition's rows and visits only its documents", async () => {
    const before = queryScan.documents;
    await expectPartitions();
    expect(queryScan.documents - before).toBe(60); // 3 queries × 20 documents, not 3 × 60
    const { resources } = await prices.items.query("SELECT * FROM c WHERE c.securityId = 'A'").fetchAll();
    expect(resources).toHaveLength(20);
  });

  it("finds the documents a query names by id (ARRAY_CONTAINS(@ids, c.id)) by their ids, as Cosmos DB's index does", async () => {
    const named = ["2024-01-03|close|test", "2024-01-07|close|test", "2024-01-31|close|test", "2024-01-12|close|test"];
    const ask = (sql: string) =>
      prices.items
        .query<Price>(
          {
            query: sql,
            parameters: [
              { name: "@ids", value: named },
              { name: "@t", value: "price" },
            ],
          },
          { partitionKey: "B" },
        )
        .fetchAll();
    const before = queryScan.documents;
    const { resources } = await ask("SELECT * FROM c WHERE c.docType = @t AND ARRAY_CONTAINS(@ids, c.id)");
    expect(queryScan.documents - before).toBe(3); // the three that exist in B, not its 20 documents
    expect(resources.map((r) => r.id).sort()).toEqual(named.filter((id) => !id.startsWith("2024-01-31")).sort());
    expect(resources.every((r) => r.securityId === "B")).toBe(true);
    // Where the condition need not hold for every row (OR), the partition is scanned: same engine, right answer.
    const either = await ask("SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.id) OR c.date = '2024-01-20'");
    expect(either.resources).toHaveLength(4);
  });

  it("serves TOP, ORDER BY, COUNT and continuation tokens as before", async () => {
    const top = await prices.items
      .query<Price>(
        {
          query:
            "SELECT TOP 1 * FROM c WHERE c.securityId = @s AND c.docType = 'price' AND c.date <= @d ORDER BY c.id DESC",
          parameters: [
            { name: "@s", value: "B" },
            { name: "@d", value: "2024-01-07" },
          ],
        },
        { partitionKey: "B" },
      )
      .fetchAll();
    expect(top.resources.map((p) => p.date)).toEqual(["2024-01-07"]);
    const count = await prices.items
      .query<number>("SELECT VALUE COUNT(1) FROM c WHERE c.securityId = 'C'", { partitionKey: "C" })
      .fetchAll();
    expect(count.resources).toEqual([20]);
    const pages: string[][] = [];
    const iterator = prices.items.query<Price>("SELECT * FROM c WHERE c.securityId = 'A' ORDER BY c.id", {
      partitionKey: "A",
      maxItemCount: 7,
    });
    while (iterator.hasMoreResults()) {
      const page = await iterator.fetchNext();
      if (page.resources.length > 0) pages.push(page.resources.map((p) => p.id));
    }
    expect(pages.map((p) => p.length)).toEqual([7, 7, 6]);
    expect(pages.flat()).toEqual([...(expected.get("A")?.keys() ?? [])].sort());
  });

  it("stays right through upsert, replace, delete, patch and bulk (batch requests)", async () => {
    const upserted = price("A", 21);
    await prices.items.upsert(upserted);
    remember(upserted);
    const replaced = { ...price("A", 2), price: 99 };
    await prices.item(replaced.id, "A").replace(replaced);
    remember(replaced);
    await prices.item(price("B", 3).id, "B").delete();
    expected.get("B")?.delete(price("B", 3).id);
    await prices.item(price("C", 4).id, "C").patch([{ op: "set", path: "/price", value: 44 }]);
    remember({ ...price("C", 4), price: 44 });
    const bulk = [price("D", 1), price("D", 2), { ...price("B", 5), price: 55 }];
    await prices.items.bulk(bulk.map((p) => ({ operationType: BulkOperationType.Upsert, resourceBody: { ...p } })));
    bulk.forEach(remember);
    await prices.items.bulk([{ operationType: BulkOperationType.Delete, id: price("D", 2).id, partitionKey: "D" }]);
    expected.get("D")?.delete(price("D", 2).id);
    await prices.items.bulk([
      { operationType: BulkOperationType.Create, resourceBody: { ...price("C", 22) } },
      { operationType: BulkOperationType.Delete, id: price("C", 1).id, partitionKey: "C" },
    ]);
    remember(price("C", 22));
    expected.get("C")?.delete(price("C", 1).id);
    // A replace may not move a document to another partition: refused, and the index is untouched.
    await expect(prices.item(price("A", 5).id, "A").replace({ ...price("A", 5), securityId: "B" })).rejects.toThrow();
    await expectPartitions();
  });

  it("keeps the partitions after a crash (journal) and after a clean restart (snapshot)", async () => {
    // A crash: a second stand-in on the same folder restores the first one's snapshot and journal.
    const crashed = standIn;
    client.dispose();
    crashed.server.closeAllConnections();
    crashed.server.close();
    crashed.store.close();
    standIn = await startDurableStandIn({ port: 0, dir });
    await connect();
    await expectPartitions();
    // A clean stop writes a snapshot; the next start restores it.
    client.dispose();
    await standIn.close();
    standIn = await startDurableStandIn({ port: 0, dir });
    await connect();
    expect(standIn.restored).toBe([...expected.values()].reduce((n, p) => n + p.size, 0) + 0);
    const before = queryScan.documents;
    await expectPartitions();
    expect(queryScan.documents - before).toBe(standIn.restored);
  });
});
