import type { Container } from "@azure/cosmos";
import { bulkRead } from "./bulk";
import { readDocument, updateDocument } from "./conditional-update";
import { createIfAbsent } from "./cosmos-errors";

/** What a pointer names: the newest item of its kind for one owner (its id and the key it is ordered by). */
export interface LatestTarget {
  id: string;
  sortKey: string;
}

/** A pointer's document in `runs` (partition /ownerId): one per owner and kind, at a known id. */
interface PointerDoc {
  id: string;
  ownerId: string;
  type: "latest-pointer";
  kind: string;
  /** null: looked for and none found (so that a list does not look again). */
  targetId: string | null;
  sortKey: string;
}

const pointerId = (kind: string): string => `latest|${kind}`;

/**
 * The newest run of each export or blob source, and the newest job of each feed, found without a
 * query per item: a pointer document per owner and kind in the `runs` container, at a known id, that
 * only ever moves forward (by sort key, conditionally on the version read). A list page reads its
 * owners' pointers in one bulk read and the items they name in another.
 */
export class CosmosLatestPointers {
  constructor(private readonly container: Container) {}

  /** Points the owner's pointer at `target` unless it points at something newer already. */
  async advance(ownerId: string, kind: string, target: LatestTarget): Promise<void> {
    const doc: PointerDoc = {
      id: pointerId(kind),
      ownerId,
      type: "latest-pointer",
      kind,
      targetId: target.id,
      sortKey: target.sortKey,
    };
    if (await createIfAbsent(this.container, doc)) return;
    await updateDocument<PointerDoc>(
      this.container,
      { id: doc.id, partitionKey: ownerId, what: `the latest ${kind} of '${ownerId}'` },
      () => readDocument<PointerDoc>(this.container, doc.id, ownerId),
      (current) =>
        current.targetId !== null && current.sortKey >= target.sortKey ? undefined : { ...current, ...doc },
    );
  }

  /** Records what a look-up found for an owner without a pointer (null: nothing), unless a pointer appeared meanwhile. */
  async fill(ownerId: string, kind: string, target: LatestTarget | null): Promise<void> {
    await createIfAbsent(this.container, {
      id: pointerId(kind),
      ownerId,
      type: "latest-pointer",
      kind,
      targetId: target?.id ?? null,
      sortKey: target?.sortKey ?? "",
    } satisfies PointerDoc);
  }

  /** The pointers of these owners, in one bulk read: the target's id (null: none) by owner; owners without a pointer are absent. */
  async read(kind: string, ownerIds: readonly string[]): Promise<Map<string, string | null>> {
    const unique = [...new Set(ownerIds)];
    const found = await bulkRead<PointerDoc>(
      this.container,
      unique.map((ownerId) => ({ id: pointerId(kind), partitionKey: ownerId })),
    );
    const pointers = new Map<string, string | null>();
    for (const doc of found.values()) if (doc.type === "latest-pointer") pointers.set(doc.ownerId, doc.targetId);
    return pointers;
  }
}
