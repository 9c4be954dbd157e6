import type { Container, SqlParameter } from "@azure/cosmos";
import { mapConcurrent } from "../../../domain/concurrency";
import { bulkRead, refKey, type DocRef } from "../bulk";
import { stripSystem } from "../cosmos-errors";
import { readDocument } from "../conditional-update";
import { recordedOf, type WithRecorded } from "./recorded";
import { versionKeyOf, type VersionDoc } from "./version-docs";

/** Where one kind's records are: the current documents' container, and the versions beside them. */
export interface AsAtSource {
  container: Container;
  versions: Container;
  kind: string;
}

/** A stored document as it was at some instant, with its version metadata (as the current documents carry it). */
export type StoredDoc = Record<string, unknown> & WithRecorded;

/**
 * The stored document of one record as the service knew it at `asAt`: the current one if it was
 * recorded by then, else the version that was current then (undefined: the record was not known yet).
 * A point read, plus one single-partition query when the record changed since.
 */
export async function readAsAt(
  src: AsAtSource,
  ref: DocRef,
  asAt: string,
  accept: (doc: StoredDoc) => boolean = () => true,
  current?: StoredDoc | null,
): Promise<StoredDoc | undefined> {
  const now =
    current === undefined ? await readDocument<StoredDoc>(src.container, ref.id, ref.partitionKey, accept) : current;
  if (now != null && recordedOf(now).at <= asAt) return stripSystem(withoutEtag(now));
  return versionAt(src, ref, asAt, now == null ? undefined : recordedOf(now).version);
}

/** readAsAt for many records: one bulk read, then a query for each record that changed since. */
export async function readManyAsAt(
  src: AsAtSource,
  refs: readonly DocRef[],
  asAt: string,
  accept: (doc: StoredDoc) => boolean = () => true,
): Promise<Map<string, StoredDoc>> {
  const current = await bulkRead<StoredDoc>(src.container, refs);
  const out = new Map<string, StoredDoc>();
  await mapConcurrent(refs, 16, async (ref) => {
    const now = current.get(refKey(ref));
    const found = await readAsAt(src, ref, asAt, accept, now !== undefined && accept(now) ? now : null);
    if (found !== undefined && accept(found)) out.set(refKey(ref), found);
  });
  return out;
}

/** The newest version of a record recorded by `asAt`, below version `below` (the current one's, which wins for itself). */
async function versionAt(
  src: AsAtSource,
  ref: DocRef,
  asAt: string,
  below: number | undefined,
): Promise<StoredDoc | undefined> {
  const key = versionKeyOf(src.kind, ref.partitionKey);
  const parameters: SqlParameter[] = [
    { name: "@key", value: key },
    { name: "@id", value: ref.id },
    { name: "@asAt", value: asAt },
  ];
  if (below !== undefined) parameters.push({ name: "@below", value: below });
  const { resources } = await src.versions.items
    .query<VersionDoc>(
      {
        query: `SELECT TOP 1 * FROM c WHERE c.key = @key AND c.recordId = @id AND c.recordedFrom <= @asAt${below === undefined ? "" : " AND c.version < @below"} ORDER BY c.version DESC`,
        parameters,
      },
      { partitionKey: key },
    )
    .fetchAll();
  return resources[0]?.doc;
}

const withoutEtag = (doc: StoredDoc): StoredDoc => {
  const { _etag: _e, ...rest } = doc as StoredDoc & { _etag?: string };
  return rest;
};
