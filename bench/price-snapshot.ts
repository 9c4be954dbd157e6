import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { JournalEntry } from "../local/cosmos/journal-entries";
import { dateAfter, isinFor } from "./fixtures";

/** Prices per security (one partition each): 10,000 documents are 100 securities. */
export const PRICES_PER_SECURITY = 100;

export const securityIdFor = (n: number): string => `sec_${isinFor(n)}`;

/** The price document the service stores (id `date|type|source`, partition /securityId). */
function priceDoc(security: number, day: number): Record<string, unknown> {
  const date = dateAfter("2020-01-01", day);
  return {
    id: `${date}|close|bench`,
    securityId: securityIdFor(security),
    docType: "price",
    date,
    type: "close",
    source: "bench",
    price: Math.round((100 + security / 100 + day / 10) * 100) / 100,
    currency: "EUR",
  };
}

/**
 * Writes `documents` prices as the Cosmos stand-in's snapshot (generation 1) of database `db`, container
 * `prices`, in the journal store's own format (local/cosmos/journal-store.ts): the stand-in restores it
 * through the same code as after a restart. Loading a million documents this way takes seconds; the
 * restore that follows is what is measured as the restart time.
 */
export function writePriceSnapshot(cosmosDir: string, db: string, documents: number): void {
  rmSync(cosmosDir, { recursive: true, force: true });
  mkdirSync(cosmosDir, { recursive: true });
  const fd = openSync(join(cosmosDir, "00000001.snapshot.jsonl"), "w");
  const entries: string[] = [];
  const write = (entry: JournalEntry): void => {
    entries.push(JSON.stringify(entry));
    if (entries.length >= 10_000) flush();
  };
  const flush = (): void => {
    if (entries.length > 0) writeSync(fd, `${entries.join("\n")}\n`);
    entries.length = 0;
  };
  write({ op: "db", db });
  write({
    op: "coll",
    db,
    coll: "prices",
    def: { id: "prices", partitionKey: { paths: ["/securityId"], kind: "Hash" } },
  });
  for (let i = 0; i < documents; i++) {
    write({
      op: "put",
      db,
      coll: "prices",
      doc: priceDoc(Math.floor(i / PRICES_PER_SECURITY), i % PRICES_PER_SECURITY),
    });
  }
  flush();
  closeSync(fd);
}
