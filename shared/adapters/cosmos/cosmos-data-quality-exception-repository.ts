import { BulkOperationType, type Container, type JSONObject } from "@azure/cosmos";
import type { DataQualityException } from "../../domain/data-quality-exception";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type {
  DataQualityExceptionFilter,
  DataQualityExceptionRepository,
  SnapshotRef,
  StoredException,
} from "../../ports/investment-repositories";
import { bulkRead, bulkWithRetry } from "./bulk";
import { readDocument } from "./conditional-update";
import { equalityFilters, pagedQuery } from "./paged-query";

interface ExceptionDoc extends Omit<StoredException, "etag" | "resolvedBy" | "resolution"> {
  docType: "exception";
  sortKey: string;
  /** Absent on exceptions stored before who and why were recorded. */
  resolvedBy?: string | null;
  resolution?: string | null;
  _etag?: string;
}

/** The API's fields only. */
const toException = (doc: ExceptionDoc): DataQualityException => {
  const { id, type, severity, message, entity, jobId, status, createdAt, resolvedAt } = doc;
  return {
    id,
    type,
    severity,
    message,
    entity,
    jobId,
    status,
    createdAt,
    resolvedAt,
    resolvedBy: doc.resolvedBy ?? null,
    resolution: doc.resolution ?? null,
  };
};
const toStored = (doc: ExceptionDoc): StoredException => ({
  ...toException(doc),
  ...(doc.foundIn !== undefined ? { foundIn: doc.foundIn } : {}),
  ...(doc.openedAt !== undefined ? { openedAt: doc.openedAt } : {}),
  ...(doc.unannounced !== undefined ? { unannounced: doc.unannounced } : {}),
  ...(doc._etag !== undefined ? { etag: doc._etag } : {}),
});
const toDoc = ({ etag: _e, ...e }: StoredException): ExceptionDoc => ({
  ...e,
  docType: "exception",
  sortKey: `${e.createdAt}|${e.id}`,
});
const ok = (status: number): boolean => status >= 200 && status <= 299;

/** Data-quality exceptions in the `exceptions` container (partition /id; the id derives from the condition). */
export class CosmosDataQualityExceptionRepository implements DataQualityExceptionRepository {
  constructor(private readonly container: Container) {}

  async createMany(exceptions: readonly StoredException[]): Promise<(string | undefined)[]> {
    const results = await bulkWithRetry(
      this.container,
      exceptions.map((e) => ({
        operationType: BulkOperationType.Create,
        partitionKey: e.id,
        resourceBody: toDoc(e) as unknown as JSONObject,
      })),
    );
    return results.map((r, i) => {
      if (ok(r.statusCode)) return r.eTag ?? "";
      if (r.statusCode === 409) return undefined;
      throw new Error(`storing exception ${exceptions[i]?.id ?? ""} failed with ${r.statusCode}`);
    });
  }

  async getMany(ids: readonly string[]): Promise<Map<string, StoredException>> {
    const docs = await bulkRead<ExceptionDoc>(
      this.container,
      [...new Set(ids)].map((id) => ({ id, partitionKey: id })),
      true,
    );
    const out = new Map<string, StoredException>();
    for (const doc of docs.values()) if (doc.docType === "exception") out.set(doc.id, toStored(doc));
    return out;
  }

  async replaceMany(exceptions: readonly StoredException[]): Promise<(string | undefined)[]> {
    const results = await bulkWithRetry(
      this.container,
      exceptions.map((e) => ({
        operationType: BulkOperationType.Replace,
        id: e.id,
        partitionKey: e.id,
        resourceBody: toDoc(e) as unknown as JSONObject,
        ifMatch: e.etag ?? "",
      })),
    );
    return results.map((r, i) => {
      if (ok(r.statusCode)) return r.eTag ?? "";
      if (r.statusCode === 412 || r.statusCode === 404) return undefined;
      throw new Error(`updating exception ${exceptions[i]?.id ?? ""} failed with ${r.statusCode}`);
    });
  }

  async foundIn(refs: readonly SnapshotRef[]): Promise<StoredException[]> {
    if (refs.length === 0) return [];
    // Across partitions (an exception's partition is its id): once per batch of valued portfolio-dates.
    const { resources } = await this.container.items
      .query<ExceptionDoc>({
        query:
          "SELECT * FROM c WHERE c.docType = 'exception' AND ARRAY_CONTAINS(@refs, c.foundIn) AND (c.status = 'open' OR IS_DEFINED(c.unannounced))",
        parameters: [{ name: "@refs", value: [...new Set(refs.map((r) => `${r.portfolioId}|${r.date}`))] }],
      })
      .fetchAll();
    return resources.map(toStored);
  }

  async get(id: string): Promise<DataQualityException | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : toException(doc);
  }

  async list(filter: DataQualityExceptionFilter, request: PageRequest): Promise<CursorPage<DataQualityException>> {
    const { where, parameters } = equalityFilters({
      type: filter.type,
      status: filter.status,
      severity: filter.severity,
    });
    const page = await pagedQuery<ExceptionDoc>(
      this.container,
      { where: ["c.docType = 'exception'", ...where], parameters, sortField: "sortKey", descending: true },
      request,
    );
    return { ...page, items: page.items.map(toException) };
  }

  private read(id: string): Promise<ExceptionDoc | undefined> {
    return readDocument<ExceptionDoc>(this.container, id, id, (doc) => doc.docType === "exception");
  }
}
