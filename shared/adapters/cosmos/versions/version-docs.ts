import type { Container } from "@azure/cosmos";
import { guardContainer, stripSystem } from "../cosmos-errors";
import { recordedOf, type WithRecorded } from "./recorded";

/**
 * A closed version of a record in the `versions` container (partition /key = `<kind>|<the record's
 * partition key>`): the whole stored document as it was (`doc`), and when it stopped being current.
 * Its id is `<record id>|v<n>`, so writing it again (a retry, a crash) rewrites the same document.
 * `recordedTo` is null between the two steps of a change (see versioned-writes.ts): a copy written
 * before its successor was stored, or whose successor's write did not get to close it.
 */
export interface VersionDoc {
  id: string;
  key: string;
  docType: "version";
  kind: string;
  recordId: string;
  version: number;
  recordedFrom: string;
  recordedTo: string | null;
  /** `<recordedFrom>|<record id>|<version, 10 digits>`: orders histories newest first, one string for a cursor. */
  seq: string;
  doc: Record<string, unknown>;
}

/** How the documents of one container are versioned: the kind's name, and where a record's partition key and id are. */
export interface VersionedKind<D> {
  kind: string;
  partitionKeyOf(doc: D): string;
  recordIdOf(doc: D): string;
}

export const versionKeyOf = (kind: string, partitionKey: string): string => `${kind}|${partitionKey}`;
export const versionIdOf = (recordId: string, version: number): string => `${recordId}|v${version}`;
export const seqOf = (recordedFrom: string, recordId: string, version: number): string =>
  `${recordedFrom}|${recordId}|${String(version).padStart(10, "0")}`;

/** The copy of a stored document's version, open (null) or closed at `recordedTo`. */
export function versionCopy<D extends object>(
  kind: VersionedKind<D>,
  stored: D & WithRecorded,
  recordedTo: string | null,
): VersionDoc {
  const { _etag: _e, ...doc } = stripSystem(stored) as D & WithRecorded & { _etag?: string };
  const recorded = recordedOf(doc);
  const recordId = kind.recordIdOf(stored);
  return {
    id: versionIdOf(recordId, recorded.version),
    key: versionKeyOf(kind.kind, kind.partitionKeyOf(stored)),
    docType: "version",
    kind: kind.kind,
    recordId,
    version: recorded.version,
    recordedFrom: recorded.at,
    recordedTo,
    seq: seqOf(recorded.at, recordId, recorded.version),
    doc: doc,
  };
}

/** The `versions` container of the database `container` belongs to (behind the same error boundary). */
export const versionsBeside = (container: Container): Container =>
  guardContainer(container.database.container("versions"));
