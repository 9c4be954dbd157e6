import { ChangeFeedStartFrom, StatusCodes, type Container } from "@azure/cosmos";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDurableStandIn } from "../../test/cosmos-stand-in";

interface Item {
  id: string;
  pk: string;
  n?: number;
  _lsn?: number;
}

/** Reads the feed with the SDK's own iterator until it answers 304: what a change-feed reader sees. */
async function drain(
  container: Container,
  continuation?: string,
  maxItemCount = 2,
): Promise<{ items: Item[]; continuation: string }> {
  const iterator = container.items.getChangeFeedIterator<Item>({
    changeFeedStartFrom:
      continuation === undefined ? ChangeFeedStartFrom.Beginning() : ChangeFeedStartFrom.Continuation(continuation),
    maxItemCount,
  });
  const items: Item[] = [];
  for (;;) {
    const page = await iterator.readNext();
    if (page.statusCode === StatusCodes.NotModified) return { items, continuation: page.continuationToken };
    items.push(...page.result);
  }
}

describe("the stand-in's change feed (latest-version mode, as Cosmos DB's)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ids-feed-"));
  let open: Awaited<ReturnType<typeof openDurableStandIn>> | undefined;
  afterAll(async () => {
    await open?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives each document's latest version once, in write order, with _lsn; no deletes; a continuation resumes after a restart", async () => {
    open = await openDurableStandIn(dir);
    const container = open.things;
    await container.items.create({ id: "a", pk: "x", n: 1 });
    await container.items.create({ id: "b", pk: "y", n: 1 });
    await container.items.upsert({ id: "a", pk: "x", n: 2 });
    await container.items.create({ id: "c", pk: "x", n: 1 });
    await container.item("c", "x").delete();

    const first = await drain(container);
    // `a` was written again after `b`: its latest version comes after b; `c` was deleted and never shows.
    expect(first.items.map((i) => [i.id, i.n])).toEqual([
      ["b", 1],
      ["a", 2],
    ]);
    const lsns = first.items.map((i) => i._lsn ?? 0);
    expect(lsns[0]).toBeLessThan(lsns[1] ?? 0);
    // A point read does not show _lsn, as in Cosmos DB.
    const { resource } = await container.item("a", "x").read<Item>();
    expect(resource?._lsn).toBeUndefined();
    expect((await drain(container, first.continuation)).items).toEqual([]);

    await container.items.upsert({ id: "b", pk: "y", n: 2 });
    // Restarted from its journal: positions are kept, so the reader continues after what it saw.
    await open.close();
    open = await openDurableStandIn(dir);
    const again = open.things;
    const next = await drain(again, first.continuation);
    expect(next.items.map((i) => [i.id, i.n])).toEqual([["b", 2]]);
    expect(next.items[0]?._lsn).toBeGreaterThan(Math.max(...lsns));
    await again.items.create({ id: "d", pk: "z" });
    expect((await drain(again, next.continuation)).items.map((i) => i.id)).toEqual(["d"]);
    // From the beginning after the restart (snapshot + journal): every live document once, in order.
    const all = await drain(again);
    expect(all.items.map((i) => i.id)).toEqual(["a", "b", "d"]);

    // A crash (no final snapshot): the journal alone brings back the same positions and _ts.
    const crashed = mkdtempSync(join(tmpdir(), "ids-feed-crash-"));
    try {
      cpSync(dir, crashed, { recursive: true });
      const replayed = await openDurableStandIn(crashed);
      const replay = await drain(replayed.things);
      expect(replay.items.map((i) => [i.id, i._lsn, (i as { _ts?: number })._ts])).toEqual(
        all.items.map((i) => [i.id, i._lsn, (i as { _ts?: number })._ts]),
      );
      await replayed.close();
    } finally {
      rmSync(crashed, { recursive: true, force: true });
    }
  }, 30_000);

  it("ends a page at about 4 MB of documents, whatever the item count asked for, as Cosmos DB does", async () => {
    const pageDir = mkdtempSync(join(tmpdir(), "ids-feed-pages-"));
    const server = await openDurableStandIn(pageDir, "big");
    try {
      const container = server.things;
      const filler = "x".repeat(1024 * 1024);
      for (let n = 0; n < 6; n++) await container.items.create({ id: `big-${n}`, pk: "p", filler });
      const iterator = container.items.getChangeFeedIterator<Item>({
        changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
        maxItemCount: 100,
      });
      const pages: string[][] = [];
      for (;;) {
        const page = await iterator.readNext();
        if (page.statusCode === StatusCodes.NotModified) break;
        pages.push(page.result.map((i) => i.id));
      }
      // Six documents of 1 MB: three fit under 4 MB, the rest come on the next page; each once, in order.
      expect(pages).toEqual([
        ["big-0", "big-1", "big-2"],
        ["big-3", "big-4", "big-5"],
      ]);
    } finally {
      await server.close();
      rmSync(pageDir, { recursive: true, force: true });
    }
  }, 30_000);
});
