import type { z } from "zod";
import { AppError, type ErrorDetail } from "../../../domain/errors";
import { MAX_IMPORT_RECORDS, payloadKey, recordSchemas, type DataType } from "../../../domain/import-payload";
import { issuesToDetails } from "../../../domain/validation";

export type RecordOf<T extends DataType> = z.infer<(typeof recordSchemas)[T]>;

const MAX_DETAILS = 1000;

/** Collects validation problems, one per field, capped at 1,000. */
export class Problems {
  readonly details: ErrorDetail[] = [];

  add(field: string, message: string): void {
    if (this.details.length < MAX_DETAILS) this.details.push({ field, message });
  }

  addAll(details: readonly ErrorDetail[]): void {
    for (const d of details) this.add(d.field, d.message);
  }

  throwIfAny(): void {
    if (this.details.length > 0) {
      const count = `${this.details.length}${this.details.length >= MAX_DETAILS ? "+" : ""} problem${this.details.length === 1 ? "" : "s"}`;
      throw new AppError("VALIDATION_ERROR", `The import failed validation (${count}); nothing was written`, {
        details: this.details,
      });
    }
  }
}

/**
 * Checks the payload's shape and every record against its schema. Returns the parsed records in
 * payload order (undefined where a record failed, with its problems added).
 */
export function parseRecords<T extends DataType>(
  dataType: T,
  body: unknown,
  problems: Problems,
): (RecordOf<T> | undefined)[] {
  const key = payloadKey[dataType];
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError("INVALID_REQUEST", "The request body must be a JSON object");
  }
  const extra = Object.keys(body).filter((k) => k !== key);
  const records = (body as Record<string, unknown>)[key];
  if (!Array.isArray(records)) {
    throw new AppError("INVALID_REQUEST", `The body must be { "${key}": [ ... ] }`, {
      details: [{ field: key, message: "an array of records is required" }],
    });
  }
  if (records.length > MAX_IMPORT_RECORDS) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `At most ${MAX_IMPORT_RECORDS.toLocaleString("en")} records per request; this one has ${records.length.toLocaleString("en")}`,
    );
  }
  for (const field of extra) problems.add(field, `unknown field; the body holds only "${key}"`);
  if (records.length === 0) problems.add(key, "at least one record is required");
  const schema = recordSchemas[dataType];
  return records.map((record, index) => {
    const parsed = schema.safeParse(record);
    if (parsed.success) return parsed.data as RecordOf<T>;
    problems.addAll(issuesToDetails(parsed.error.issues, `${key}[${index}]`));
    return undefined;
  });
}

/** Flags records whose natural key repeats an earlier record of the same payload. */
export function flagDuplicates<R>(
  records: readonly (R | undefined)[],
  keyOf: (r: R) => string | undefined,
  field: (i: number) => string,
  problems: Problems,
): void {
  const first = new Map<string, number>();
  records.forEach((record, index) => {
    if (record === undefined) return;
    const key = keyOf(record);
    if (key === undefined) return;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, index);
    else problems.add(field(index), `duplicates record ${earlier} of this payload`);
  });
}
