import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import type { SnapshotRef, StaleMarker } from "../../ports/investment-repositories";
import { bulkWithRetry } from "./bulk";

/**
 * Stale markers live in the `positions` container beside the snapshots they concern (partition
 * /portfolioId): one document per portfolio-date, `stale|<date>`, so repeated marks coalesce and a
 * portfolio's markers are one single-partition query away.
 */
interface StaleDoc {
  id: string;
  docType: "stale";
  portfolioId: string;
  date: string;
  markedAt: string;
  jobId: string | null;
  writing?: boolean;
  _etag?: string;
}

const staleId = (date: string): string => `stale|${date}`;
const ok = (status: number): boolean => status >= 200 && status <= 299;

function toMarker(doc: StaleDoc, etag: string | undefined): StaleMarker {
  return { portfolioId: doc.portfolioId, date: doc.date, markedAt: doc.markedAt, jobId: doc.jobId ?? null, writing: doc.writing === true, etag: etag ?? doc._etag ?? "" };
}

function staleDocs(refs: readonly SnapshotRef[], { markedAt, jobId, writing }: { markedAt: string; jobId: string | null; writing: boolean }): StaleDoc[] {
  const unique = [...new Map(refs.map((r) => [`${r.portfolioId}|${r.date}`, r])).values()];
  return unique.map((r) => ({ id: staleId(r.date), docType: "stale", portfolioId: r.portfolioId, date: r.date, markedAt, jobId, writing }));
}

export async function markStale(container: Container, refs: readonly SnapshotRef[], mark: { markedAt: string; jobId: string | null; writing: boolean }): Promise<StaleMarker[]> {
  const docs = staleDocs(refs, mark);
  // Create first: only a create tells atomically that this call, and no other, brought the marker into being.
  const created = await bulkWithRetry(container, docs.map((doc) => ({ operationType: BulkOperationType.Create, resourceBody: doc as unknown as JSONObject })));
  const mine: StaleMarker[] = [];
  const existing: StaleDoc[] = [];
  created.forEach((result, i) => {
    const doc = docs[i];
    if (doc === undefined) return;
    if (ok(result.statusCode)) mine.push(toMarker(doc, result.eTag ?? (result.resourceBody as { _etag?: string } | undefined)?._etag));
    else if (result.statusCode === 409) existing.push(doc);
    else throw new Error(`marking ${doc.portfolioId}/${doc.id} stale failed with ${result.statusCode}`);
  });
  // A marker that exists is re-written: its etag changes, so a valuation that read it before this
  // change (and so may have read the data before it) does not clear it.
  await remarkStale(container, existing, mark);
  return mine;
}

export async function remarkStale(container: Container, refs: readonly SnapshotRef[], mark: { markedAt: string; jobId: string | null; writing: boolean }): Promise<void> {
  const docs = staleDocs(refs, mark);
  const results = await bulkWithRetry(container, docs.map((doc) => ({ operationType: BulkOperationType.Upsert, resourceBody: doc as unknown as JSONObject })));
  const failed = results.find((r) => !ok(r.statusCode));
  if (failed !== undefined) throw new Error(`re-marking a stale portfolio-date failed with ${failed.statusCode}`);
}

export async function clearStale(container: Container, markers: readonly StaleMarker[]): Promise<boolean[]> {
  // One conditional delete per marker, in bulk: 412 = re-marked meanwhile (it stays, and its own
  // message revalues it), 404 = already cleared.
  const results = await bulkWithRetry(container, markers.map((m) => ({ operationType: BulkOperationType.Delete, id: staleId(m.date), partitionKey: m.portfolioId, ifMatch: m.etag })));
  return results.map((r, i) => {
    if (ok(r.statusCode)) return true;
    if (r.statusCode === 412 || r.statusCode === 404) return false;
    throw new Error(`clearing the stale marker ${markers[i]?.portfolioId ?? ""}/${markers[i]?.date ?? ""} failed with ${r.statusCode}`);
  });
}

export async function staleMarkers(container: Container, portfolioId: string, limit: number): Promise<StaleMarker[]> {
  const { resources } = await container.items
    .query<StaleDoc>(
      {
        query: "SELECT TOP @n * FROM c WHERE c.portfolioId = @p AND c.docType = 'stale' ORDER BY c.date",
        parameters: [
          { name: "@n", value: limit },
          { name: "@p", value: portfolioId },
        ],
      },
      { partitionKey: portfolioId },
    )
    .fetchAll();
  return resources.map((doc) => toMarker(doc, doc._etag));
}

export async function stalePortfolios(container: Container, portfolioIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(portfolioIds)];
  if (ids.length === 0) return new Set();
  if (ids.length === 1) {
    const id = ids[0] ?? "";
    const { resources } = await container.items
      .query<string>({ query: "SELECT TOP 1 VALUE c.portfolioId FROM c WHERE c.portfolioId = @p AND c.docType = 'stale'", parameters: [{ name: "@p", value: id }] }, { partitionKey: id })
      .fetchAll();
    return new Set(resources);
  }
  const { resources } = await container.items
    .query<string>({ query: "SELECT VALUE c.portfolioId FROM c WHERE c.docType = 'stale' AND ARRAY_CONTAINS(@ids, c.portfolioId)", parameters: [{ name: "@ids", value: ids }] })
    .fetchAll();
  return new Set(resources);
}

export async function portfoliosStaleSince(container: Container, before: string, limit: number): Promise<string[]> {
  const { resources } = await container.items
    .query<string>({ query: "SELECT VALUE c.portfolioId FROM c WHERE c.docType = 'stale' AND c.markedAt < @before", parameters: [{ name: "@before", value: before }] })
    .fetchAll();
  return [...new Set(resources)].slice(0, limit);
}
