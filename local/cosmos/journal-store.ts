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

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
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
    const finalPath = this.path(next, "snapshot");
    const tmp = `${finalPath}.tmp`;
    const fd = openSync(tmp, "w");
    let documents = 0;
    let buffer: string[] = [];
    let size = 0;
    const flush = (): void => {
      if (buffer.length > 0) writeSync(fd, buffer.join(""));
      buffer = [];
      size = 0;
    };
    for (const entry of snapshotEntries(account)) {
      if (entry.op === "put") documents++;
      const line = `${JSON.stringify(entry)}\n`;
      buffer.push(line);
      size += line.length;
      if (size > 1 << 20) flush();
    }
    flush();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, finalPath);
    this.gen = next;
    this.openJournal();
    for (const file of this.files()) if (file.gen < next) rmSync(file.path, { force: true });
    return documents;
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
