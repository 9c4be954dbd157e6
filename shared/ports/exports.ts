import type { Readable } from "node:stream";
import type { StoredExport } from "../domain/export";
import type { ColumnType, DateWindow, ExportDataType, ExportFilters, ExportFormat } from "../domain/export-data";
import type { SettingsRepository } from "./settings-repository";

/**
 * The contract between the three parts of an export run: a data set (rows from the same read use
 * cases as the API), a writer (CSV, XLSX or JSON bytes) and a destination (SFTP or blob).
 */

/** What a data set is asked for. */
export interface DataSetRequest {
  dataType: ExportDataType;
  filters: ExportFilters;
  /** transactions (trade date) and prices (price date) only; undefined = all dates. */
  window?: DateWindow;
}

/**
 * A data set's rows, streamed: each record has the shape the API's GET answers with for that data type
 * (JSON writes them as they are); `columns` are the dotted paths of the flattened fields, in order, for
 * the CSV header and the XLSX header row (a record missing a column leaves its cell empty).
 */
export interface DataSet {
  readonly columns: readonly string[];
  /** The type of a column's values where the schema says (XLSX writes `date`/`timestamp` as Excel dates); absent: inferred from each value. */
  readonly columnTypes?: Readonly<Record<string, ColumnType>>;
  readonly records: AsyncIterable<Record<string, unknown>>;
}

export interface ExportDataSets {
  open(request: DataSetRequest): DataSet;
}

/** Written alongside the rows (JSON's envelope; XLSX's sheet name is the data type). */
export interface ExportHeader {
  exportId: string;
  dataType: ExportDataType;
  /** ISO timestamp of the run. */
  generatedAt: string;
}

/** The bytes of a file being written; `rows()` is the number of records written, final once `stream` has ended. */
export interface ExportFile {
  readonly stream: Readable;
  rows(): number;
}

/** Streams a data set as one file of the format; memory stays bounded whatever the row count. */
export type WriteExport = (format: ExportFormat, header: ExportHeader, dataSet: DataSet) => ExportFile;

/** One attempt's part in an upload. */
export interface UploadAttempt {
  /** Unique to the attempt (letters, digits and `-`): names its temporary file, so no two attempts ever write the same one. */
  readonly id: string;
  /**
   * Called once the whole file is written and before it becomes visible under its name (SFTP rename,
   * blob block-list commit); throws when the attempt must not deliver it (the export was deleted, the
   * run or its target was taken over), and the upload is then abandoned.
   */
  confirm(): Promise<void>;
}

/**
 * Where a run's file goes. The file appears whole under its name or not at all, and only after
 * `confirm`: SFTP writes a temporary name of the attempt's own and renames it; blob stages blocks and
 * commits them once. The caller holds the target (ExportTargetLocks) for the whole upload.
 */
export interface ExportDestination {
  /** Uploads `body` as `fileName` (overwriting a file of that name); resolves with the bytes written. */
  upload(fileName: string, body: Readable, attempt: UploadAttempt): Promise<{ bytes: number }>;
}

/** Stored export definitions (System Settings → Exports), destination secrets sealed. */
export type ExportRepository = SettingsRepository<StoredExport>;
