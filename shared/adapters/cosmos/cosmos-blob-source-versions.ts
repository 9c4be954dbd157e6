import { createHash } from "node:crypto";
import type { Container } from "@azure/cosmos";
import type { CopiedFile } from "../../domain/blob-source-run";
import { versionKey, type CustomerBlob } from "../../domain/customer-blob";
import type { BlobSourceVersions } from "../../ports/blob-sources";

const VERSION = "blob-source-version";

interface VersionDoc extends CopiedFile {
  id: string;
  ownerId: string;
  type: typeof VERSION;
  runId: string;
  copiedAt: string;
}

/** Blob names may hold characters Cosmos ids may not (/ ? #), and be long: a version's id is a hash. */
const versionId = (blob: CustomerBlob): string =>
  `bsv_${createHash("sha256").update(versionKey(blob)).digest("hex").slice(0, 40)}`;

/** The customer blob versions each blob source copied, in the `runs` container beside its runs (partition /ownerId = the source id). */
export class CosmosBlobSourceVersions implements BlobSourceVersions {
  constructor(private readonly container: Container) {}

  async seen(sourceId: string, blobs: readonly CustomerBlob[]): Promise<Set<string>> {
    const byId = new Map(blobs.map((b) => [versionId(b), versionKey(b)] as const));
    const ids = [...byId.keys()];
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 100) {
      const { resources } = await this.container.items
        .query<string>(
          {
            query:
              "SELECT VALUE c.id FROM c WHERE c.ownerId = @ownerId AND c.type = @type AND ARRAY_CONTAINS(@ids, c.id)",
            parameters: [
              { name: "@ownerId", value: sourceId },
              { name: "@type", value: VERSION },
              { name: "@ids", value: ids.slice(i, i + 100) },
            ],
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
    const doc: VersionDoc = {
      id: versionId(file),
      ownerId: sourceId,
      type: VERSION,
      name: file.name,
      etag: file.etag,
      inboundName: file.inboundName,
      runId,
      copiedAt: at,
    };
    await this.container.items.upsert(doc);
  }
}
