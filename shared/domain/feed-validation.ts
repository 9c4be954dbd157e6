import type { FeedValidation } from "./feed";
import type { MappedRow, RowError } from "./feed-mapping";

/** Row errors kept for a job or a dry run; the counts go on beyond it. */
export const MAX_ROW_ERRORS = 1000;

/** A row rejected under `skip-row`: one VALIDATION_FAILED exception each. */
export interface RejectedRow {
  row: number;
  errors: RowError[];
}

/** Valid records a dry run shows. */
export const PREVIEW_RECORDS = 20;

interface Counts {
  /** Every row of the file, however many errors it has: only the list of errors is capped. */
  received: number;
  valid: number;
  rejected: number;
  /** The first row errors (at most MAX_ROW_ERRORS); `errorsTruncated` says when there were more. */
  errors: RowError[];
  errorsTruncated: boolean;
  /** The first PREVIEW_RECORDS valid records, as the import would receive them. */
  preview: Record<string, unknown>[];
}

/** What a file's validation decided: write its valid rows (and report the rejected ones), or reject it whole. */
export type ValidationOutcome =
  | (Counts & { status: "accepted"; reason: string; rejectedRows: RejectedRow[] })
  | (Counts & { status: "rejected"; reason: string });

/**
 * Applies a feed's `validation` to a file's mapped rows as they stream by. `reject-file`: any row
 * error rejects the file. `skip-row`: valid rows pass and each rejected row is reported, until more
 * than `maxRejectedRows` are rejected, which rejects the file. Whatever `onRowError` says, a file
 * whose header lacks a mapped column, or that has no valid row at all, is rejected: it would load
 * nothing the feed means. A rejected file writes nothing, so the caller holds (or re-reads) the valid
 * rows until `outcome()` says `accepted`. The one verdict of both a delivered file's first pass and a
 * dry run.
 */
export class RowValidation {
  private received = 0;
  private valid = 0;
  private rejected = 0;
  private readonly errors: RowError[] = [];
  private errorsTruncated = false;
  private readonly rejectedRows: RejectedRow[] = [];
  private readonly preview: Record<string, unknown>[] = [];
  /** Mapped columns the file's header lacks (row 0): the file cannot be read as the feed maps it. */
  private headerErrors: RowError[] = [];

  constructor(
    private readonly validation: FeedValidation,
    private readonly maxErrors = MAX_ROW_ERRORS,
  ) {}

  /** The header's problems (RecordMapper.header), before the first row: any of them rejects the file. */
  header(errors: readonly RowError[]): void {
    this.headerErrors = [...errors];
    this.errors.unshift(...errors.slice(0, this.maxErrors));
  }

  /** Counts a mapped row; true when it is valid and the file is not rejected (so the row may be written). */
  accept(result: MappedRow): boolean {
    this.received += 1;
    if (result.ok) {
      this.valid += 1;
      if (this.preview.length < PREVIEW_RECORDS) this.preview.push(result.record);
      return !this.fileRejected;
    }
    this.rejected += 1;
    for (const e of result.errors) {
      if (this.errors.length < this.maxErrors) this.errors.push(e);
      else this.errorsTruncated = true;
    }
    if (this.validation.onRowError === "skip-row" && !this.fileRejected && this.rejectedRows.length < this.maxErrors) {
      this.rejectedRows.push({ row: result.row, errors: result.errors });
    }
    return false;
  }

  /** Whether the rows seen so far already reject the file. */
  get fileRejected(): boolean {
    if (this.headerErrors.length > 0) return true;
    if (this.validation.onRowError === "reject-file") return this.rejected > 0;
    return this.validation.maxRejectedRows !== undefined && this.rejected > this.validation.maxRejectedRows;
  }

  outcome(): ValidationOutcome {
    const counts: Counts = {
      received: this.received,
      valid: this.valid,
      rejected: this.rejected,
      errors: [...this.errors],
      errorsTruncated: this.errorsTruncated,
      preview: [...this.preview],
    };
    const rows = (n: number): string => `${n} row${n === 1 ? "" : "s"}`;
    const missing = this.headerErrors.map((e) => JSON.stringify(e.column ?? e.field));
    let reason: string | undefined;
    if (missing.length > 0)
      reason = `the file's header lacks the mapped column${missing.length === 1 ? "" : "s"} ${missing.join(", ")}; the file does not match the feed's mapping`;
    else if (this.fileRejected)
      reason =
        this.validation.onRowError === "reject-file"
          ? `${rows(this.rejected)} rejected; the feed rejects the whole file on any row error`
          : `${rows(this.rejected)} rejected, more than the feed's maxRejectedRows (${this.validation.maxRejectedRows})`;
    // A file that loads nothing is never accepted, whatever onRowError says.
    else if (this.received === 0) reason = "the file has no data rows";
    else if (this.valid === 0) reason = `no row is valid (${rows(this.rejected)} rejected)`;
    if (reason === undefined) {
      const accepted = `${rows(this.valid)} valid${this.rejected > 0 ? `, ${rows(this.rejected)} rejected and skipped` : ""}`;
      return { ...counts, status: "accepted", reason: accepted, rejectedRows: [...this.rejectedRows] };
    }
    return { ...counts, status: "rejected", reason };
  }
}

/** The answer of a feed's dry run (`POST {id}/test`): what a delivered file's first pass decides. */
export interface DryRunSummary {
  received: number;
  valid: number;
  rejected: number;
  /** What ingestion would do with the file: write its valid rows, or reject (quarantine) it whole. */
  verdict: "accepted" | "rejected";
  /** Why: what would be written, or why the file would be rejected. */
  reason: string;
  errors: RowError[];
  errorsTruncated: boolean;
  preview: Record<string, unknown>[];
}

export function dryRunSummary(outcome: ValidationOutcome): DryRunSummary {
  const { received, valid, rejected, status, reason, errors, errorsTruncated, preview } = outcome;
  return { received, valid, rejected, verdict: status, reason, errors, errorsTruncated, preview };
}
