import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosIngestAttempts } from "./cosmos-ingest-attempts";

describe("CosmosIngestAttempts on the Cosmos stand-in", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  beforeAll(async () => {
    cosmos = await startCosmos();
  });
  afterAll(async () => cosmos.stop());

  it("counts the attempts of a version that began and did not end, whichever instance began them; an end forgets them", async () => {
    const now = new Date("2026-03-01T10:00:00.000Z");
    // Two instances, as two processes (or one before and after a crash) would have.
    const [a, b] = [
      new CosmosIngestAttempts(cosmos.db.container("counters")),
      new CosmosIngestAttempts(cosmos.db.container("counters")),
    ];
    expect(await a.begin("v1", now)).toBe(1);
    expect(await b.begin("v1", now)).toBe(2);
    expect(await a.begin("v2", now)).toBe(1);
    expect(await Promise.all([a.begin("v1", now), b.begin("v1", now)])).toEqual(expect.arrayContaining([3, 4]));
    await b.end("v1");
    expect(await a.begin("v1", now)).toBe(1);
    await a.end("v1");
    await a.end("v1");
  });

  it("is kept a week after its last attempt: Cosmos DB deletes an attempt that never ended by its time to live", async () => {
    const attempts = new CosmosIngestAttempts(cosmos.db.container("counters"));
    await attempts.begin("v-old", new Date("2026-01-01T00:00:00.000Z"));
    const id = "ingest-attempt|v-old";
    const { resource } = await cosmos.db.container("counters").item(id, id).read<{ ttl: number }>();
    expect(resource?.ttl).toBe(7 * 24 * 3600);
  });
});
