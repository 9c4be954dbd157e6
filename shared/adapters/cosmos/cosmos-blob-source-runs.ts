import { createHash } from "node:crypto";
import type { Container } from "@azure/cosmos";
import type { BlobSourceRun, CopiedFile } from "../../domain/blob-source-run";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { type BlobSourceRunStore, type StoredBlobSourceRun } from "../../ports/blob-sources";
import { versionKey, type CustomerBlob } from "../../domain/customer-blob";
import { readDocument, updateDocument } from "./conditional-update";
import { createIfAbsent, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";

const RUN = "blob-source-run";
const VERSION = "blob-source-version";

interface RunDoc extends StoredBlobSourceRun {
  ownerId: string;
  type: typeof RUN;
  /** Newest first, unique: start time then id. */
  sortKey: string;
}

interface VersionDoc extends CopiedFile {
  id: string;
  ownerId: string;
  type: typeof VERSION;
  runId: string;
  copiedAt: string;
}

/** Blob names may hold characters Cosmos ids may not (/ ? #), and be long: a version's id is a hash. */
const versionId = (blob: CustomerBlob): string => `bsv_${createHash("sha256").update(versionKey(blob)).digest("hex").slice(0, 40)}`;

const toDoc = (run: StoredBlobSourceRun): RunDoc => ({ ...run, ownerId: run.blobSourceId, type: RUN, sortKey: `${run.startedAt}|${run.id}` });

function toStored(doc: RunDoc): StoredBlobSourceRun {
  const { ownerId: _o, type: _t, sortKey: _s, ...run } = stripSystem(doc);
  const { _etag: _e, ...rest } = run as StoredBlobSourceRun & { _etag?: string };
  return rest;
}

function toPublic(doc: RunDoc): BlobSourceRun {
  const { leaseUntil: _l, attempts: _a, ...run } = toStored(doc);
  return run;
}

/** Blob source runs and the customer blob versions they copied, in the `runs` container (partition /ownerId = the source id). */
export class CosmosBlobSourceRuns implements BlobSourceRunStore {
  constructor(private readonly container: Container) {}

  async create(run: StoredBlobSourceRun): Promise<boolean> {
    return createIfAbsent(this.container, toDoc(run));
  }

  async get(sourceId: string, runId: string): Promise<StoredBlobSourceRun | undefined> {
    const doc = await this.read(sourceId, runId);
    return doc === undefined ? undefined : toStored(doc);
  }

  async take(sourceId: string, runId: string, now: string, leaseUntil: string): Promise<StoredBlobSourceRun | undefined> {
    let taken = false;
    const stored = await updateDocument<RunDoc>(
      this.container,
      { id: runId, partitionKey: sourceId, what: `Blob source run '${runId}'` },
      () => this.read(sourceId, runId),
      (doc) => {
        taken = false;
        if (doc.status !== "running" || (doc.leaseUntil !== undefined && doc.leaseUntil > now)) return undefined;
        taken = true;
        const { _etag: _e, ...rest } = doc as RunDoc & { _etag?: string };
        return { ...rest, leaseUntil, attempts: (doc.attempts ?? 0) + 1 };
      },
    );
    return taken && stored !== undefined ? toStored(stored) : undefined;
  }

  async save(run: StoredBlobSourceRun): Promise<void> {
    await this.container.items.upsert(toDoc(run));
  }

  async abandoned(now: string, unsentBefore: string): Promise<StoredBlobSourceRun[]> {
    // Across sources, but rare and small: only runs still running, which a healthy service finishes in minutes.
    const { resources } = await this.container.items
      .query<RunDoc>({
        query:
          "SELECT TOP 100 * FROM c WHERE c.type = @type AND c.status = 'running' AND ((c.attempts > 0 AND c.leaseUntil < @now) OR (c.attempts = 0 AND c.startedAt < @unsentBefore))",
        parameters: [{ name: "@type", value: RUN }, { name: "@now", value: now }, { name: "@unsentBefore", value: unsentBefore }],
      })
      .fetchAll();
    return resources.map(toStored);
  }

  async list(sourceId: string, request: PageRequest): Promise<CursorPage<BlobSourceRun>> {
    const page = await pagedQuery<RunDoc>(
      this.container,
      { where: ["c.ownerId = @ownerId", "c.type = @type"], parameters: [{ name: "@ownerId", value: sourceId }, { name: "@type", value: RUN }], sortField: "sortKey", descending: true, partitionKey: sourceId },
      request,
    );
    return { ...page, items: page.items.map(toPublic) };
  }

  async seen(sourceId: string, blobs: readonly CustomerBlob[]): Promise<Set<string>> {
    const byId = new Map(blobs.map((b) => [versionId(b), versionKey(b)] as const));
    const ids = [...byId.keys()];
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 100) {
      const { resources } = await this.container.items
        .query<string>(
          {
            query: "SELECT VALUE c.id FROM c WHERE c.ownerId = @ownerId AND c.type = @type AND ARRAY_CONTAINS(@ids, c.id)",
            parameters: [{ name: "@ownerId", value: sourceId }, { name: "@type", value: VERSION }, { name: "@ids", value: ids.slice(i, i + 100) }],
          },
          { partitionKey: sourceId },
        )
        .fetchAll();
      for (const id of resources) {
        const key = byId.get(id);
        if (key !== undefined) found.add(key);
      }
    }
    return found;
  }

  async markSeen(sourceId: string, file: CopiedFile, runId: string, at: string): Promise<void> {
    const doc: VersionDoc = { id: versionId(file), ownerId: sourceId, type: VERSION, name: file.name, etag: file.etag, inboundName: file.inboundName, runId, copiedAt: at };
    await this.container.items.upsert(doc);
  }

  private read(sourceId: string, runId: string): Promise<RunDoc | undefined> {
    return readDocument<RunDoc>(this.container, runId, sourceId, (doc) => doc.type === RUN);
  }
}
