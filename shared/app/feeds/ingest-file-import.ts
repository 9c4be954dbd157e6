import { AppError } from "../../domain/errors";
import type { FeedDefinition } from "../../domain/feed";
import { compileMapping } from "../../domain/feed-mapping";
import { payloadKey } from "../../domain/import-payload";
import type { Job } from "../../domain/job";
import type { FileStore } from "../../ports/file-store";
import type { FileReaders } from "../../ports/file-readers";
import type { ImportRecords } from "../investments/import/import-records";
import { INBOUND } from "./ingest-file-parts";

/**
 * Re-reads the file and imports its valid rows, a batch per call, all under the file's one job. The
 * calls run one after another, in the file's order; the next batch is read while one is written, so
 * at most two batches are held.
 */
export async function importValidRows(
  deps: { files: FileStore; readers: FileReaders; importer: Pick<ImportRecords, "execute"> },
  batchSize: number,
  feed: FeedDefinition,
  name: string,
  origin: { source: Job["source"]; feedId: string; fileName: string; jobId: string; reprocessOf?: string },
  file: { received: number; rejected: number; errors: Job["errors"] },
): Promise<void> {
  const stream = await deps.files.read(INBOUND, name);
  if (stream === undefined) throw new Error(`the file ${name} left inbound during its import`);
  const map = compileMapping(feed);
  interface Batch {
    records: Record<string, unknown>[];
    /** The file's row of each record, to name rows in what the import refuses. */
    rows: number[];
  }
  let batch: Batch = { records: [], rows: [] };
  // A full batch waits until the next row shows whether it is the last.
  let full: Batch | undefined;
  let first = true;
  let writing: Promise<unknown> | undefined;
  const key = payloadKey[feed.dataType];
  const send = async ({ records, rows }: Batch, last: boolean): Promise<void> => {
    if (writing !== undefined) await writing;
    const part = { first, last };
    first = false;
    writing = deps.importer
      .execute({ dataType: feed.dataType, checked: records, origin: { ...origin, file, part } })
      .catch((error: unknown) => {
        throw error instanceof AppError ? withFileRows(error, key, rows) : error;
      });
    // Awaited by the next send or at the end; until then a failure must not count as unhandled.
    writing.catch(() => undefined);
  };
  try {
    for await (const record of deps.readers.records(feed, stream)) {
      const mapped = map(record);
      if (!mapped.ok) continue;
      if (full !== undefined) {
        await send(full, false);
        full = undefined;
      }
      batch.records.push(mapped.record);
      batch.rows.push(mapped.row);
      if (batch.records.length >= batchSize) {
        full = batch;
        batch = { records: [], rows: [] };
      }
    }
    if (full !== undefined) await send(full, batch.records.length === 0);
    if (batch.records.length > 0) await send(batch, true);
  } finally {
    // Whatever ended the reading, the part being written finishes (or fails) before this returns.
    if (writing !== undefined) await writing;
  }
}

/** The import's details name records of one call (`prices[3].isin`): named here by the file's row (`row 10004: isin`). */
function withFileRows(error: AppError, key: string, rows: readonly number[]): AppError {
  if (error.details === undefined) return error;
  const prefix = new RegExp(`^${key}\\[(\\d+)\\]\\.?`);
  const details = error.details.map((d) => {
    const m = prefix.exec(d.field);
    const row = m === null ? undefined : rows[Number(m[1])];
    return row === undefined
      ? d
      : { ...d, field: d.field.slice(m?.[0].length ?? 0) || "record", message: `row ${row}: ${d.message}` };
  });
  return new AppError(error.code, error.message, { details, cause: error });
}
