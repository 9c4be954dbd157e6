import type { Container } from "@azure/cosmos";
import type { StoredExportRun } from "../../domain/export-run";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import type { ScheduledRun, ScheduledRunStore } from "../../ports/scheduled-runs";
import { bulkRead, refKey } from "./bulk";
import { readDocument, updateDocument } from "./conditional-update";
import { createIfAbsent, stripSystem } from "./cosmos-errors";
import { CosmosLatestPointers } from "./cosmos-latest-pointers";
import { pagedQuery } from "./paged-query";

/** How one kind of run is stored: its document `type`, its name in messages, and the key its history is listed by (newest first, unique). */
export interface RunDocuments<R extends ScheduledRun> {
  type: string;
  label: string;
  sortKey(run: R): string;
}

/** Export runs: listed by scheduled time. */
export const exportRunDocuments: RunDocuments<StoredExportRun> = {
  type: "export-run",
  label: "Export run",
  sortKey: (run) => `${run.scheduledFor}|${run.id}`,
};

/** Blob source runs: listed by start time. */
export const blobSourceRunDocuments: RunDocuments<StoredBlobSourceRun> = {
  type: "blob-source-run",
  label: "Blob source run",
  sortKey: (run) => `${run.startedAt}|${run.id}`,
};

/** The run as stored: partition `ownerId` (the export or source), `type` tells the kinds apart in the container. */
type RunDoc<R> = R & { ownerId: string; type: string; sortKey: string };

/**
 * The runs of one kind of owner in the `runs` container (partition /ownerId). A run's id derives from
 * what it runs (owner and due time), so creating its document only if absent is the claim.
 */
export class CosmosScheduledRuns<R extends ScheduledRun> implements ScheduledRunStore<R> {
  private readonly pointers: CosmosLatestPointers;

  constructor(
    private readonly container: Container,
    private readonly kind: RunDocuments<R>,
  ) {
    this.pointers = new CosmosLatestPointers(container);
  }

  async claim(ownerId: string, run: R): Promise<boolean> {
    const doc = this.toDoc(ownerId, run);
    if (!(await createIfAbsent(this.container, doc))) return false;
    // After the claim: a pointer never names a run that is not there (a crash between leaves it one run behind).
    await this.pointers.advance(ownerId, this.kind.type, { id: run.id, sortKey: doc.sortKey });
    return true;
  }

  async latest(ownerIds: readonly string[]): Promise<Map<string, R>> {
    const pointers = await this.pointers.read(this.kind.type, ownerIds);
    const named = [...pointers].flatMap(([ownerId, runId]) =>
      runId === null ? [] : [{ id: runId, partitionKey: ownerId }],
    );
    const found = await bulkRead<RunDoc<R>>(this.container, named);
    const latest = new Map<string, R>();
    for (const ref of named) {
      const doc = found.get(refKey(ref));
      if (doc !== undefined && doc.type === this.kind.type) latest.set(ref.partitionKey, this.toRun(doc));
    }
    // Owners whose runs began before pointers existed: looked up once each, and remembered.
    for (const ownerId of new Set(ownerIds)) {
      if (pointers.has(ownerId)) continue;
      const newest = await this.newest(ownerId);
      await this.pointers.fill(
        ownerId,
        this.kind.type,
        newest === undefined ? null : { id: newest.id, sortKey: this.kind.sortKey(newest) },
      );
      if (newest !== undefined) latest.set(ownerId, newest);
    }
    return latest;
  }

  async update(ownerId: string, runId: string, change: (current: R) => R | undefined): Promise<R | undefined> {
    const stored = await updateDocument<RunDoc<R>>(
      this.container,
      { id: runId, partitionKey: ownerId, what: `${this.kind.label} '${runId}'` },
      () => readDocument<RunDoc<R>>(this.container, runId, ownerId, (doc) => doc.type === this.kind.type),
      (doc) => {
        const next = change(this.toRun(doc));
        return next === undefined ? undefined : this.toDoc(ownerId, next);
      },
    );
    return stored === undefined ? undefined : this.toRun(stored);
  }

  async abandoned(now: string, unsentBefore: string, limit: number): Promise<R[]> {
    // Across owners, but rare and small: only runs still running, which a healthy service finishes in minutes.
    const { resources } = await this.container.items
      .query<RunDoc<R>>({
        query:
          "SELECT TOP @limit * FROM c WHERE c.type = @type AND c.status = 'running' AND (c.leaseUntil < @now OR (NOT IS_DEFINED(c.leaseUntil) AND c.startedAt < @unsentBefore))",
        parameters: [
          { name: "@limit", value: limit },
          { name: "@type", value: this.kind.type },
          { name: "@now", value: now },
          { name: "@unsentBefore", value: unsentBefore },
        ],
      })
      .fetchAll();
    return resources.map((doc) => this.toRun(doc));
  }

  async list(ownerId: string, request: PageRequest): Promise<CursorPage<R>> {
    const page = await pagedQuery<RunDoc<R>>(
      this.container,
      {
        where: ["c.ownerId = @ownerId", "c.type = @type"],
        parameters: [
          { name: "@ownerId", value: ownerId },
          { name: "@type", value: this.kind.type },
        ],
        sortField: "sortKey",
        descending: true,
        partitionKey: ownerId,
      },
      request,
    );
    return { ...page, items: page.items.map((doc) => this.toRun(doc)) };
  }

  private async newest(ownerId: string): Promise<R | undefined> {
    const { resources } = await this.container.items
      .query<RunDoc<R>>(
        {
          query: "SELECT TOP 1 * FROM c WHERE c.ownerId = @ownerId AND c.type = @type ORDER BY c.sortKey DESC",
          parameters: [
            { name: "@ownerId", value: ownerId },
            { name: "@type", value: this.kind.type },
          ],
        },
        { partitionKey: ownerId },
      )
      .fetchAll();
    const doc = resources[0];
    return doc === undefined ? undefined : this.toRun(doc);
  }

  private toDoc(ownerId: string, run: R): RunDoc<R> {
    return { ...run, ownerId, type: this.kind.type, sortKey: this.kind.sortKey(run) };
  }

  private toRun(doc: RunDoc<R>): R {
    const { ownerId: _owner, type: _type, sortKey: _sort, ...run } = stripSystem(doc);
    return run as unknown as R;
  }
}
