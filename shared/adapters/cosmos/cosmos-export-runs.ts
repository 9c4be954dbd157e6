import type { Container } from "@azure/cosmos";
import type { ExportRunRepository, StoredExportRun } from "../../domain/export-run";
import type { Page } from "../../domain/pagination";
import { readDocument, updateDocument } from "./conditional-update";
import { createIfAbsent, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";

const TYPE = "export-run";

/** The run as stored: partition `ownerId` = the export id, `type` tells it from blob sources' documents, `sortKey` orders the history uniquely. */
type RunDoc = StoredExportRun & { ownerId: string; type: typeof TYPE; sortKey: string };

const toDoc = (run: StoredExportRun): RunDoc => ({ ...run, ownerId: run.exportId, type: TYPE, sortKey: `${run.scheduledFor}|${run.id}` });

function toRun(doc: RunDoc): StoredExportRun {
  const { ownerId: _owner, type: _type, sortKey: _sort, ...run } = stripSystem(doc);
  return run as StoredExportRun;
}

/** Export runs in the `runs` container: the document id is the run id, derived from (export, scheduled time), so creating it is the claim. */
export class CosmosExportRuns implements ExportRunRepository {
  constructor(private readonly container: Container) {}

  async claim(run: StoredExportRun): Promise<boolean> {
    return createIfAbsent(this.container, toDoc(run));
  }

  async get(exportId: string, runId: string): Promise<StoredExportRun | undefined> {
    const doc = await this.read(exportId, runId);
    return doc === undefined ? undefined : toRun(doc);
  }

  async update(exportId: string, runId: string, change: (current: StoredExportRun) => StoredExportRun | undefined): Promise<StoredExportRun | undefined> {
    const stored = await updateDocument<RunDoc>(
      this.container,
      { id: runId, partitionKey: exportId, what: `Export run '${runId}'` },
      () => this.read(exportId, runId),
      (doc) => {
        const next = change(toRun(doc));
        return next === undefined ? undefined : toDoc(next);
      },
    );
    return stored === undefined ? undefined : toRun(stored);
  }

  async list(exportId: string, page: number, pageSize: number): Promise<Page<StoredExportRun>> {
    const result = await pagedQuery<RunDoc>(
      this.container,
      { where: ["c.ownerId = @owner", "c.type = @type"], parameters: [{ name: "@owner", value: exportId }, { name: "@type", value: TYPE }], sortField: "sortKey", descending: true, partitionKey: exportId },
      { page, pageSize },
    );
    return { items: result.items.map(toRun), totalItems: result.totalItems };
  }

  async expired(now: string, limit: number): Promise<StoredExportRun[]> {
    const { resources } = await this.container.items
      .query<RunDoc>({
        query: "SELECT TOP @limit * FROM c WHERE c.type = @type AND c.status = @running AND c.leaseUntil < @now",
        parameters: [
          { name: "@limit", value: limit },
          { name: "@type", value: TYPE },
          { name: "@running", value: "running" },
          { name: "@now", value: now },
        ],
      })
      .fetchAll();
    return resources.map(toRun);
  }

  private read(exportId: string, runId: string): Promise<RunDoc | undefined> {
    return readDocument<RunDoc>(this.container, runId, exportId, (doc) => doc.type === TYPE);
  }
}
