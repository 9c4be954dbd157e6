/**
 * The Cosmos stand-in's durability on disk: numbered generations of a snapshot (the whole state) and a
 * journal (every acknowledged write after it), both JSON lines. Restore replays the newest snapshot and
 * the journals after it into the stand-in's memory; a snapshot starts the next generation.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  appendFileSync,
} from "node:fs";
import { join } from "node:path";
import { apply, snapshotEntries, type JournalEntry } from "./journal-entries";
import type { StandInAccount } from "./stand-in-internals";

const FILE = /^(\d{8})\.(snapshot|journal)\.jsonl$/;
const CHUNK = 16 << 20;

/**
 * Calls `onLine` for every line of a file, reading it in chunks: a snapshot of a million documents is
 * larger than the biggest string V8 can hold, so it is never read whole.
 */
export function forEachLine(path: string, onLine: (line: string) => void): void {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read === 0) break;
      const chunk = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
        if (nl > start) onLine(chunk.toString("utf8", start, nl));
        start = nl + 1;
      }
      // Copied: `buffer` is overwritten by the next read.
      carry = Buffer.from(chunk.subarray(start));
    }
    if (carry.length > 0) onLine(carry.toString("utf8"));
  } finally {
    closeSync(fd);
  }
}

export class JournalStore {
  private gen: number;
  private journalFd = -1;
  private journalBytes = 0;

  /** The snapshot being written a slice at a time, if one is (see snapshotInBackground). */
  private inBackground: Promise<number> | undefined;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    // A snapshot a crash left half-written: restore never reads it (the generation before stays whole).
    for (const name of readdirSync(dir)) if (name.endsWith(".jsonl.tmp")) rmSync(join(dir, name), { force: true });
    this.gen = Math.max(0, ...this.files().map((f) => f.gen));
  }

  private files(): { gen: number; kind: string; path: string }[] {
    return readdirSync(this.dir)
      .map((name) => ({ m: FILE.exec(name), name }))
      .filter((f): f is { m: RegExpExecArray; name: string } => f.m !== null)
      .map(({ m, name }) => ({ gen: Number(m[1]), kind: m[2] ?? "", path: join(this.dir, name) }))
      .sort((a, b) => a.gen - b.gen || (a.kind === "snapshot" ? -1 : 1));
  }

  private path(gen: number, kind: "snapshot" | "journal"): string {
    return join(this.dir, `${String(gen).padStart(8, "0")}.${kind}.jsonl`);
  }

  /**
   * Replays the newest snapshot and every journal after it. When there was nothing after the snapshot,
   * it is the current state already and its journal continues (no compaction needed): a restart of a
   * million documents does not also write them all again.
   */
  restore(account: StandInAccount): { snapshotIsCurrent: boolean } {
    const files = this.files();
    const snapshot = [...files].reverse().find((f) => f.kind === "snapshot");
    let journalled = 0;
    for (const file of files) {
      if (snapshot !== undefined && (file.gen < snapshot.gen || (file.kind === "snapshot" && file !== snapshot)))
        continue;
      forEachLine(file.path, (line) => {
        let entry: JournalEntry;
        try {
          entry = JSON.parse(line) as JournalEntry;
        } catch {
          return; // a line torn by a crash mid-write was never acknowledged
        }
        if (file.kind === "journal") journalled++;
        apply(account, entry);
      });
    }
    if (snapshot !== undefined && journalled === 0 && snapshot.gen === this.gen) {
      this.openJournal();
      return { snapshotIsCurrent: true };
    }
    return { snapshotIsCurrent: false };
  }

  /** Writes the whole state as the next generation's snapshot and starts that generation's journal. */
  snapshot(account: StandInAccount): number {
    const next = this.gen + 1;
    const tmp = `${this.path(next, "snapshot")}.tmp`;
    const fd = openSync(tmp, "w");
    let documents = 0;
    try {
      const lines = new SnapshotLines(fd);
      for (const entry of snapshotEntries(account)) {
        if (entry.op === "put") documents++;
        lines.add(entry);
      }
      lines.flush();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.gen = next;
    this.openJournal();
    this.complete(next, tmp);
    return documents;
  }

  /**
   * snapshot() a slice at a time, letting requests be served in between: a store of a million
   * documents takes seconds to write, which would otherwise stall every request for as long. The next
   * generation's journal starts at once, so every write from then on is in it; the snapshot itself is
   * fuzzy (a document written meanwhile is in it as it was or as it became), which that journal, replayed
   * after it, makes exact: its entries are whole documents and deletes, so one applied again changes
   * nothing. Until the snapshot is complete, the generation before it stays, and a restore replays that
   * generation and then the new journal. One at a time; a sync snapshot() meanwhile (the final one)
   * supersedes it.
   */
  snapshotInBackground(account: StandInAccount): Promise<number> {
    this.inBackground ??= this.writeInSlices(account).finally(() => (this.inBackground = undefined));
    return this.inBackground;
  }

  private async writeInSlices(account: StandInAccount): Promise<number> {
    const next = this.gen + 1;
    this.gen = next;
    this.openJournal();
    const tmp = `${this.path(next, "snapshot")}.tmp`;
    const fd = openSync(tmp, "w");
    let documents = 0;
    let superseded = false;
    try {
      const lines = new SnapshotLines(fd);
      for (const entry of snapshotEntries(account, true)) {
        if (entry.op === "put") documents++;
        if (!lines.add(entry)) continue;
        await new Promise((resolve) => setImmediate(resolve));
        superseded = this.gen !== next;
        if (superseded) break;
      }
      if (!superseded) {
        lines.flush();
        fsyncSync(fd);
      }
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    } finally {
      closeSync(fd);
    }
    if (superseded || this.gen !== next) {
      rmSync(tmp, { force: true });
      return 0;
    }
    this.complete(next, tmp);
    return documents;
  }

  /** The snapshot of generation `gen` is whole: it replaces the generations before it. */
  private complete(gen: number, tmp: string): void {
    renameSync(tmp, this.path(gen, "snapshot"));
    for (const file of this.files()) if (file.gen < gen) rmSync(file.path, { force: true });
  }

  private openJournal(): void {
    if (this.journalFd >= 0) closeSync(this.journalFd);
    const path = this.path(this.gen, "journal");
    this.journalFd = openSync(path, "a");
    this.journalBytes = existsSync(path) ? statSync(path).size : 0;
  }

  append(entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return;
    const text = `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
    appendFileSync(this.journalFd, text);
    this.journalBytes += text.length;
  }

  get unsnapshottedBytes(): number {
    return this.journalBytes;
  }

  close(): void {
    if (this.journalFd >= 0) closeSync(this.journalFd);
    this.journalFd = -1;
  }
}

/** A snapshot's lines, written in pieces of about a megabyte. */
class SnapshotLines {
  private buffer: string[] = [];
  private size = 0;

  constructor(private readonly fd: number) {}

  /** Adds an entry; true when that wrote a piece to the file. */
  add(entry: JournalEntry): boolean {
    const line = `${JSON.stringify(entry)}\n`;
    this.buffer.push(line);
    this.size += line.length;
    if (this.size <= 1 << 20) return false;
    this.flush();
    return true;
  }

  flush(): void {
    if (this.buffer.length > 0) writeSync(this.fd, this.buffer.join(""));
    this.buffer = [];
    this.size = 0;
  }
}
