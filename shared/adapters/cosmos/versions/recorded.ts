import { BEFORE_VERSIONS, type RecordVersion, type VersionChange, type WriteContext } from "../../../domain/versions";

/**
 * The version metadata a current document carries (field `recorded`): the version it is, and when,
 * by whom and through what it was recorded. Creating a record writes it with the record, at no extra cost.
 */
export interface Recorded {
  version: number;
  /** The service's clock, UTC with milliseconds. */
  at: string;
  by: string;
  requestId: string | null;
  jobId: string | null;
  change: VersionChange;
}

export interface WithRecorded {
  recorded?: Recorded;
}

/** A document's version; one stored before versions existed reads as version 1, known from the beginning. */
export function recordedOf(doc: WithRecorded): Recorded {
  return (
    doc.recorded ?? {
      version: 1,
      at: BEFORE_VERSIONS,
      by: "unknown",
      requestId: null,
      jobId: null,
      change: "created",
    }
  );
}

/**
 * The metadata of the version after `previous` (or of a new record). Its instant never goes back: a
 * clock behind the one that recorded the previous version still records a later one.
 */
export function nextRecorded(previous: Recorded | undefined, context: WriteContext, now: number): Recorded {
  const after = previous === undefined ? 0 : Date.parse(previous.at) + 1;
  return {
    version: (previous?.version ?? 0) + 1,
    at: new Date(Math.max(now, after)).toISOString(),
    by: context.recordedBy,
    requestId: context.requestId,
    jobId: context.jobId,
    change: previous === undefined ? "created" : "updated",
  };
}

export const toRecordVersion = (r: Recorded): RecordVersion => ({
  version: r.version,
  recordedAt: r.at,
  recordedBy: r.by,
  requestId: r.requestId,
  jobId: r.jobId,
  change: r.change,
});

/** A stored document without its version metadata: the record as the API's mappers take it. */
export function withoutRecorded<D extends object>(doc: D): Omit<D, "recorded"> {
  const { recorded: _recorded, ...rest } = doc as D & WithRecorded;
  return rest;
}
