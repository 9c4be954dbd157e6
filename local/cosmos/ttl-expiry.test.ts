import { CosmosClient } from "@azure/cosmos";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startDurableStandIn } from "./durable-stand-in";

const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

describe("time to live in the durable stand-in (as Cosmos DB does it)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ids-ttl-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("expires documents by their own ttl or the container's default, only where TTL is on, and the expiry survives a restart", async () => {
    let standIn = await startDurableStandIn({ port: 0, dir });
    let client = new CosmosClient({
      endpoint: `http://127.0.0.1:${standIn.port}`,
      key: KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: "unit" });
    const perItem = (
      await database.containers.createIfNotExists({ id: "per-item", partitionKey: { paths: ["/pk"] }, defaultTtl: -1 })
    ).container;
    const byDefault = (
      await database.containers.createIfNotExists({ id: "by-default", partitionKey: { paths: ["/pk"] }, defaultTtl: 2 })
    ).container;
    const off = (await database.containers.createIfNotExists({ id: "off", partitionKey: { paths: ["/pk"] } }))
      .container;
    await perItem.items.create({ id: "short", pk: "a", ttl: 1 });
    await perItem.items.create({ id: "forever", pk: "a" });
    await perItem.items.create({ id: "never", pk: "a", ttl: -1 });
    await byDefault.items.create({ id: "default", pk: "b" });
    await byDefault.items.create({ id: "own-never", pk: "b", ttl: -1 });
    await off.items.create({ id: "ignored", pk: "c", ttl: 1 });

    const ids = async (c: typeof perItem): Promise<string[]> =>
      (await c.items.query<{ id: string }>("SELECT c.id FROM c").fetchAll()).resources.map((d) => d.id).sort();
    await vi.waitFor(async () => expect(await ids(perItem)).toEqual(["forever", "never"]), {
      timeout: 5000,
      interval: 200,
    });
    await vi.waitFor(async () => expect(await ids(byDefault)).toEqual(["own-never"]), { timeout: 6000, interval: 200 });
    expect(await ids(off)).toEqual(["ignored"]);

    // The expiries were journalled like deletes: a restart does not bring the documents back.
    client.dispose();
    await standIn.close();
    standIn = await startDurableStandIn({ port: 0, dir });
    client = new CosmosClient({
      endpoint: `http://127.0.0.1:${standIn.port}`,
      key: KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const again = client.database("unit");
    expect(await ids(again.container("per-item"))).toEqual(["forever", "never"]);
    expect(await ids(again.container("by-default"))).toEqual(["own-never"]);
    client.dispose();
    await standIn.close();
  }, 30_000);
});
