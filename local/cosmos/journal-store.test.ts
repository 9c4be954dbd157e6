import type { Container } from "@azure/cosmos";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openDurableStandIn } from "../../test/cosmos-stand-in";

describe("the durable stand-in across restarts", () => {
  const dir = mkdtempSync(join(tmpdir(), "ids-journal-"));
  let open: Awaited<ReturnType<typeof openDurableStandIn>> | undefined;

  const start = async (): Promise<Container> => {
    open = await openDurableStandIn(dir);
    return open.things;
  };
  const stop = async (): Promise<void> => {
    await open?.close();
    open = undefined;
  };
  afterEach(stop);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps etags, and new documents never take a restored document's _rid", async () => {
    let things = await start();
    for (let i = 0; i < 5; i++) await things.items.create({ id: `a${i}`, pk: "p" });
    const { resource: before } = await things.item("a3", "p").read<{ _etag: string; _rid: string }>();
    await stop();

    things = await start();
    expect(open?.standIn.restored).toBe(5);
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
    expect(open?.standIn.restored).toBe(10);
  });
});

describe("a snapshot written between requests", () => {
  const dirs: string[] = [];
  const newDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "ids-journal-bg-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** What a restart of the stand-in over `dir` holds: id → v. */
  async function restored(dir: string): Promise<Map<string, number>> {
    const { things, close } = await openDurableStandIn(dir);
    try {
      const { resources } = await things.items.query<{ id: string; v: number }>("SELECT c.id, c.v FROM c").fetchAll();
      // New documents never take a restored document's _rid.
      for (let i = 0; i < 20; i++) await things.items.create({ id: `after-restart-${i}`, pk: "p0", v: 0 });
      const { resources: count } = await things.items.query<number>("SELECT VALUE COUNT(1) FROM c").fetchAll();
      expect(count[0]).toBe(resources.length + 20);
      return new Map(resources.map((r) => [r.id, r.v]));
    } finally {
      await close();
    }
  }

  it("keeps every write made while it is written, whether the process dies before it is complete or after", async () => {
    const dir = newDir();
    const { standIn, things, close } = await openDurableStandIn(dir);
    const expected = new Map<string, number>();
    const padding = "x".repeat(1000);
    // About 20 MB of documents: the snapshot is written in some twenty slices.
    for (let i = 0; i < 20_000; i += 100) {
      const docs = Array.from({ length: 100 }, (_, k) => ({ id: `d${i + k}`, pk: `p${(i + k) % 50}`, v: 1, padding }));
      await things.items.bulk(docs.map((d) => ({ operationType: "Create" as const, resourceBody: d })));
      for (const d of docs) expected.set(d.id, 1);
    }
    const write = async (n: number): Promise<void> => {
      // An update, a delete and a new document, each acknowledged before it counts.
      await things.items.upsert({ id: `d${n}`, pk: `p${n % 50}`, v: 2, padding });
      expected.set(`d${n}`, 2);
      await things.item(`d${n + 10_000}`, `p${(n + 10_000) % 50}`).delete();
      expected.delete(`d${n + 10_000}`);
      await things.items.create({ id: `new${n}`, pk: `p${n % 50}`, v: 3 });
      expected.set(`new${n}`, 3);
    };
    try {
      const snapshot = standIn.snapshotInBackground();
      await write(0);
      // A kill -9 now: the disk as it is, the snapshot half-written.
      const midway = newDir();
      cpSync(dir, midway, { recursive: true });
      expect(readdirSync(midway).some((name) => name.endsWith(".tmp"))).toBe(true);
      const atMidway = new Map(expected);
      for (let n = 1; n < 50; n++) await write(n);
      expect(await snapshot).toBeGreaterThan(19_000);
      await write(50);
      // A kill -9 after it completed: the new snapshot and the journal begun when it started.
      const after = newDir();
      cpSync(dir, after, { recursive: true });
      expect(readdirSync(after).filter((name) => name.endsWith(".snapshot.jsonl"))).toHaveLength(1);
      expect(readdirSync(after).some((name) => name.endsWith(".tmp"))).toBe(false);

      expect(await restored(midway)).toEqual(atMidway);
      expect(await restored(after)).toEqual(expected);
    } finally {
      await close();
    }
  }, 120_000);
});
