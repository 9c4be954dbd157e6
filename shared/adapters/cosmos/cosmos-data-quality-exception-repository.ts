import type { Container } from "@azure/cosmos";
import type { DataQualityException } from "../../domain/data-quality-exception";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { DataQualityExceptionFilter, DataQualityExceptionRepository } from "../../ports/investment-repositories";
import { readDocument, updateDocument } from "./conditional-update";
import { createIfAbsent, stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";

interface ExceptionDoc extends DataQualityException {
  docType: "exception";
  sortKey: string;
  _etag?: string;
}

const toException = (doc: ExceptionDoc): DataQualityException => {
  const { docType: _d, sortKey: _s, _etag: _e, ...e } = stripSystem(doc);
  return e;
};
const toDoc = (e: DataQualityException): ExceptionDoc => ({
  ...e,
  docType: "exception",
  sortKey: `${e.createdAt}|${e.id}`,
});

/** Data-quality exceptions in the `exceptions` container (partition /id; the id derives from the condition). */
export class CosmosDataQualityExceptionRepository implements DataQualityExceptionRepository {
  constructor(private readonly container: Container) {}

  async createIfNew(exception: DataQualityException): Promise<boolean> {
    return createIfAbsent(this.container, toDoc(exception));
  }

  async get(id: string): Promise<DataQualityException | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : toException(doc);
  }

  async update(
    id: string,
    change: (current: DataQualityException) => DataQualityException,
  ): Promise<DataQualityException | undefined> {
    const stored = await updateDocument<ExceptionDoc>(
      this.container,
      { id, partitionKey: id, what: `Exception '${id}'` },
      () => this.read(id),
      (doc) => toDoc(change(toException(doc))),
    );
    return stored === undefined ? undefined : toException(stored);
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
