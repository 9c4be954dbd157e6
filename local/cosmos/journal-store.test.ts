import { CosmosClient, type Container } from "@azure/cosmos";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startDurableStandIn, type DurableStandIn } from "./durable-stand-in";

const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

describe("the durable stand-in across restarts", () => {
  const dir = mkdtempSync(join(tmpdir(), "ids-journal-"));
  let standIn: DurableStandIn | undefined;
  let client: CosmosClient | undefined;

  const start = async (): Promise<Container> => {
    standIn = await startDurableStandIn({ port: 0, dir });
    client = new CosmosClient({
      endpoint: `http://127.0.0.1:${standIn.port}`,
      key: KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: "unit" });
    return (await database.containers.createIfNotExists({ id: "things", partitionKey: { paths: ["/pk"] } })).container;
  };
  const stop = async (): Promise<void> => {
    client?.dispose();
    await standIn?.close();
    standIn = undefined;
  };
  afterEach(stop);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps etags, and new documents never take a restored document's _rid", async () => {
    let things = await start();
    for (let i = 0; i < 5; i++) await things.items.create({ id: `a${i}`, pk: "p" });
    const { resource: before } = await things.item("a3", "p").read<{ _etag: string; _rid: string }>();
    await stop();

    things = await start();
    expect(standIn?.restored).toBe(5);
    const { resource: after } = await things.item("a3", "p").read<{ _etag: string; _rid: string }>();
    expect(after?._etag).toBe(before?._etag);
    expect(after?._rid).toBe(before?._rid);
    // A write made with an etag read before the restart still succeeds.
    await things
      .item("a3", "p")
      .replace({ id: "a3", pk: "p", v: 1 }, { accessCondition: { type: "IfMatch", condition: before?._etag ?? "" } });
    for (let i = 0; i < 5; i++) await things.items.create({ id: `b${i}`, pk: "p" });
    const { resources } = await things.items
      .query<string>("SELECT VALUE c.id FROM c", { partitionKey: "p" })
      .fetchAll();
    expect(resources.sort()).toEqual(["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4"]);
    await stop();

    // Nothing was written after the last snapshot: the next start restores it without writing another.
    const files = readdirSync(dir).sort();
    await start();
    expect(readdirSync(dir).sort()).toEqual(files);
    expect(standIn?.restored).toBe(10);
  });
});
