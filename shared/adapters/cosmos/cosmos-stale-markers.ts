import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import type { SnapshotRef, StaleMarker } from "../../ports/investment-repositories";
import { bulkWithRetry } from "./bulk";

/**
 * Stale markers live in the `positions` container beside the snapshots they concern (partition
 * /portfolioId), so a portfolio's markers are one single-partition query away. A ready marker is one
 * document per portfolio-date, `stale|<date>`, so repeated marks coalesce. A `writing` marker (an
 * import's, before its data) is one per portfolio-date and job, `stale|<date>|<jobId>`: imports running
 * at once never overwrite each other's, so each is settled (or swept, after a crash) on its own.
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

type Mark = { markedAt: string; jobId: string | null; writing: boolean };

const staleId = (date: string, writingJob: string | null): string =>
  writingJob === null ? `stale|${date}` : `stale|${date}|${writingJob}`;
const idOf = (m: { date: string; writing: boolean; jobId: string | null }): string =>
  staleId(m.date, m.writing ? m.jobId : null);
const ok = (status: number): boolean => status >= 200 && status <= 299;

function toMarker(doc: StaleDoc): StaleMarker {
  return {
    portfolioId: doc.portfolioId,
    date: doc.date,
    markedAt: doc.markedAt,
    jobId: doc.jobId ?? null,
    writing: doc.writing === true,
    etag: doc._etag ?? "",
  };
}

export async function markStale(
  container: Container,
  refs: readonly SnapshotRef[],
  { markedAt, jobId, writing }: Mark,
): Promise<void> {
  if (writing && jobId === null) throw new Error("a writing stale marker names its job");
  const unique = [...new Map(refs.map((r) => [`${r.portfolioId}|${r.date}`, r])).values()];
  const docs: StaleDoc[] = unique.map((r) => ({
    id: staleId(r.date, writing ? jobId : null),
    docType: "stale",
    portfolioId: r.portfolioId,
    date: r.date,
    markedAt,
    jobId,
    writing,
  }));
  // Upserted: a marker that exists gets a new etag, so a valuation that read it before this change
  // (and so may have read the data before it) does not clear it.
  const results = await bulkWithRetry(
    container,
    docs.map((doc) => ({ operationType: BulkOperationType.Upsert, resourceBody: doc as unknown as JSONObject })),
  );
  const failed = results.find((r) => !ok(r.statusCode));
  if (failed !== undefined) throw new Error(`marking a portfolio-date stale failed with ${failed.statusCode}`);
}

/** Removes one job's writing markers of these portfolio-dates (settled: the ready markers say the rest). */
export async function dropWriting(container: Container, refs: readonly SnapshotRef[], jobId: string): Promise<void> {
  const results = await bulkWithRetry(
    container,
    refs.map((r) => ({
      operationType: BulkOperationType.Delete,
      id: staleId(r.date, jobId),
      partitionKey: r.portfolioId,
    })),
  );
  const failed = results.find((r) => !ok(r.statusCode) && r.statusCode !== 404);
  if (failed !== undefined) throw new Error(`removing a writing stale marker failed with ${failed.statusCode}`);
}

/** The portfolio-dates of one job's writing markers (a query across portfolios: once per file). */
export async function writingRefs(container: Container, jobId: string): Promise<SnapshotRef[]> {
  const { resources } = await container.items
    .query<SnapshotRef>({
      query: "SELECT c.portfolioId, c.date FROM c WHERE c.docType = 'stale' AND c.writing = true AND c.jobId = @job",
      parameters: [{ name: "@job", value: jobId }],
    })
    .fetchAll();
  return resources.map((r) => ({ portfolioId: r.portfolioId, date: r.date }));
}

export async function clearStale(container: Container, markers: readonly StaleMarker[]): Promise<boolean[]> {
  // One conditional delete per marker, in bulk: 412 = re-marked meanwhile (it stays, and its own
  // message revalues it), 404 = already cleared.
  const results = await bulkWithRetry(
    container,
    markers.map((m) => ({
      operationType: BulkOperationType.Delete,
      id: idOf(m),
      partitionKey: m.portfolioId,
      ifMatch: m.etag,
    })),
  );
  return results.map((r, i) => {
    if (ok(r.statusCode)) return true;
    if (r.statusCode === 412 || r.statusCode === 404) return false;
    throw new Error(
      `clearing the stale marker ${markers[i]?.portfolioId ?? ""}/${markers[i]?.date ?? ""} failed with ${r.statusCode}`,
    );
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
  return resources.map(toMarker);
}

export async function stalePortfolios(container: Container, portfolioIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(portfolioIds)];
  if (ids.length === 0) return new Set();
  if (ids.length === 1) {
    const id = ids[0] ?? "";
    const { resources } = await container.items
      .query<string>(
        {
          query: "SELECT TOP 1 VALUE c.portfolioId FROM c WHERE c.portfolioId = @p AND c.docType = 'stale'",
          parameters: [{ name: "@p", value: id }],
        },
        { partitionKey: id },
      )
      .fetchAll();
    return new Set(resources);
  }
  const { resources } = await container.items
    .query<string>({
      query: "SELECT VALUE c.portfolioId FROM c WHERE c.docType = 'stale' AND ARRAY_CONTAINS(@ids, c.portfolioId)",
      parameters: [{ name: "@ids", value: ids }],
    })
    .fetchAll();
  return new Set(resources);
}

export async function portfoliosStaleSince(container: Container, before: string, limit: number): Promise<string[]> {
  const { resources } = await container.items
    .query<string>({
      query: "SELECT VALUE c.portfolioId FROM c WHERE c.docType = 'stale' AND c.markedAt < @before",
      parameters: [{ name: "@before", value: before }],
    })
    .fetchAll();
  return [...new Set(resources)].slice(0, limit);
}
