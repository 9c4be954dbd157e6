import type { CosmosClient } from "@azure/cosmos";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { once } from "node:events";
import type { JournalEntry } from "./cosmos-server";

const FILE = /^(\d{8})\.(snapshot|journal)\.jsonl$/;

interface DataFile {
  gen: number;
  kind: "snapshot" | "journal";
  path: string;
}

/**
 * Keeps the in-memory Cosmos stand-in's data on disk: the child journals every acknowledged write; at
 * start the newest snapshot and the journals after it are replayed; a periodic and a final snapshot
 * compact them. File names carry a generation number so a crash at any point leaves a replayable set.
 */
export class CosmosPersistence {
  private gen: number;
  private readonly files: DataFile[];

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.files = readdirSync(dir)
      .map((name) => {
        const m = FILE.exec(name);
        return m === null ? undefined : { gen: Number(m[1]), kind: m[2] as DataFile["kind"], path: join(dir, name) };
      })
      .filter((f): f is DataFile => f !== undefined)
      .sort((a, b) => a.gen - b.gen || (a.kind === "snapshot" ? -1 : 1));
    this.gen = (this.files.at(-1)?.gen ?? 0) + 1;
    for (const name of readdirSync(dir)) if (name.endsWith(".tmp")) rmSync(join(dir, name), { force: true });
  }

  /** The journal the child should write from now on. */
  journalPath(gen = this.gen): string {
    return join(this.dir, `${String(gen).padStart(8, "0")}.journal.jsonl`);
  }

  /** Replays the previous runs' data into the (empty) stand-in; returns the number of live documents. */
  async restore(client: CosmosClient, containerPartitionKeys: Record<string, string>): Promise<number> {
    const lastSnapshot = [...this.files].reverse().find((f) => f.kind === "snapshot");
    const replay = this.files.filter((f) => (lastSnapshot === undefined ? true : f.gen >= lastSnapshot.gen && (f.kind === "journal" || f === lastSnapshot)));
    const live = new Map<string, { db: string; coll: string; doc: Record<string, unknown> }>();
    for (const file of replay) {
      const lines = createInterface({ input: createReadStream(file.path), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === "") continue;
        let entry: JournalEntry;
        try {
          entry = JSON.parse(line) as JournalEntry;
        } catch {
          continue; // a line torn by a crash mid-write was never acknowledged
        }
        const pkPath = containerPartitionKeys[entry.coll] ?? "/id";
        if (entry.op === "put" && entry.doc !== undefined) {
          const key = docKey(entry.db, entry.coll, entry.doc[pkPath.slice(1)], entry.doc.id);
          live.set(key, { db: entry.db, coll: entry.coll, doc: entry.doc });
        } else if (entry.op === "del") {
          live.delete(docKey(entry.db, entry.coll, entry.pk, entry.id));
        }
      }
    }
    const docs = [...live.values()];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < docs.length) {
        const item = docs[next++];
        if (item === undefined) break;
        await client.database(item.db).container(item.coll).items.upsert(item.doc);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return docs.length;
  }

  /** Deletes the files that the restore (now journalled again in the current generation) replaced. */
  dropReplayed(): void {
    for (const file of this.files) if (file.gen < this.gen) rmSync(file.path, { force: true });
    this.files.length = 0;
  }

  currentJournalSize(): number {
    const path = this.journalPath();
    return existsSync(path) ? statSync(path).size : 0;
  }

  /**
   * Writes a snapshot of every document after switching the child to a new journal: replaying that
   * snapshot then the new journal reproduces the state whatever was written while it was read.
   */
  async snapshot(client: CosmosClient, databaseId: string, rotate: (journal: string) => Promise<void>): Promise<void> {
    const gen = this.gen + 1;
    await rotate(this.journalPath(gen));
    this.gen = gen;
    const finalPath = join(this.dir, `${String(gen).padStart(8, "0")}.snapshot.jsonl`);
    const tmp = `${finalPath}.tmp`;
    const out = createWriteStream(tmp);
    const database = client.database(databaseId);
    const { resources: containers } = await database.containers.readAll().fetchAll();
    for (const container of containers) {
      const iterator = database.container(container.id).items.readAll({ maxItemCount: 1000 });
      while (iterator.hasMoreResults()) {
        const { resources } = await iterator.fetchNext();
        for (const raw of resources) {
          const doc: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
          for (const key of ["_rid", "_self", "_etag", "_ts", "_attachments"]) delete doc[key];
          const entry: JournalEntry = { op: "put", db: databaseId, coll: container.id, doc };
          if (!out.write(`${JSON.stringify(entry)}\n`)) await once(out, "drain");
        }
      }
    }
    out.end();
    await once(out, "finish");
    renameSync(tmp, finalPath);
    for (const name of readdirSync(this.dir)) {
      const m = FILE.exec(name);
      if (m !== null && Number(m[1]) < gen) rmSync(join(this.dir, name), { force: true });
    }
  }
}

function docKey(db: string, coll: string, pk: unknown, id: unknown): string {
  return JSON.stringify([db, coll, pk ?? null, id]);
}
