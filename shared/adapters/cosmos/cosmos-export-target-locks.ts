import { createHash } from "node:crypto";
import type { Container } from "@azure/cosmos";
import type { ExportTargetHolder, ExportTargetLocks } from "../../domain/export-target";
import { readDocument, updateDocument, type Versioned } from "./conditional-update";
import { createIfAbsent, isNotFound, isPreconditionFailed } from "./cosmos-errors";

const TYPE = "export-target";

/** The lease on one target file: its own partition of `runs` (ownerId = id = a hash of the target key). */
interface TargetDoc {
  id: string;
  ownerId: string;
  type: typeof TYPE;
  key: string;
  holder: ExportTargetHolder;
  leaseUntil: string;
}

const idOf = (key: string): string => `et_${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
const same = (a: ExportTargetHolder, b: ExportTargetHolder): boolean =>
  a.runId === b.runId && a.attempt === b.attempt && a.exportId === b.exportId;

/** Export target leases in the `runs` container: created if absent, taken over and renewed with ETag conditions, deleted on release. */
export class CosmosExportTargetLocks implements ExportTargetLocks {
  constructor(private readonly container: Container) {}

  async acquire(key: string, holder: ExportTargetHolder, now: string, leaseUntil: string): Promise<boolean> {
    const id = idOf(key);
    const doc: TargetDoc = { id, ownerId: id, type: TYPE, key, holder, leaseUntil };
    // Free: the create is the claim. Taken: only a lease that ended, or an earlier attempt of the same run, is taken over.
    for (let round = 0; round < 3; round++) {
      if (await createIfAbsent(this.container, doc)) return true;
      let taken = false;
      const stored = await updateDocument<TargetDoc>(
        this.container,
        { id, partitionKey: id, what: "Export target" },
        () => this.read(id),
        (current) => {
          taken =
            current.leaseUntil <= now ||
            (current.holder.runId === holder.runId && current.holder.attempt < holder.attempt);
          return taken ? doc : undefined;
        },
      );
      if (stored !== undefined) return taken;
      // Released between the create and the read: try the create again.
    }
    return false;
  }

  async renew(key: string, holder: ExportTargetHolder, leaseUntil: string): Promise<boolean> {
    const id = idOf(key);
    let mine = false;
    await updateDocument<TargetDoc>(
      this.container,
      { id, partitionKey: id, what: "Export target" },
      () => this.read(id),
      (current) => {
        mine = same(current.holder, holder);
        return mine ? { ...current, leaseUntil } : undefined;
      },
    );
    return mine;
  }

  async holds(key: string, holder: ExportTargetHolder, now: string): Promise<boolean> {
    const current = await this.read(idOf(key));
    return current !== undefined && same(current.holder, holder) && current.leaseUntil > now;
  }

  async release(key: string, holder: ExportTargetHolder): Promise<void> {
    const id = idOf(key);
    const current = await this.read(id);
    if (current === undefined || !same(current.holder, holder)) return;
    try {
      await this.container
        .item(id, id)
        .delete({ accessCondition: { type: "IfMatch", condition: current._etag ?? "" } });
    } catch (error) {
      // Gone already, or taken over since the read: either way no longer this holder's to delete.
      if (!isNotFound(error) && !isPreconditionFailed(error)) throw error;
    }
  }

  private read(id: string): Promise<Versioned<TargetDoc> | undefined> {
    return readDocument<TargetDoc>(this.container, id, id, (doc) => doc.type === TYPE);
  }
}
