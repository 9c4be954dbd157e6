import { BulkOperationType, type Container, type ItemDefinition } from "@azure/cosmos";
import { bulkRead, bulkWithRetry, refKey, type DocRef } from "./bulk";
import { isNotFound, isPreconditionFailed } from "./cosmos-errors";
import { AGAIN, CONFLICTS, retry, stillContended } from "./retry";

/** A stored document with its version. */
export type Versioned<D> = D & { _etag?: string };

/** Reads one document; undefined when it is missing or `accept` refuses it (another docType). */
export async function readDocument<D extends ItemDefinition>(
  container: Container,
  id: string,
  partitionKey: string,
  accept: (doc: D) => boolean = () => true,
): Promise<Versioned<D> | undefined> {
  try {
    const { resource } = await container.item(id, partitionKey).read<Versioned<D>>();
    return resource !== undefined && accept(resource) ? resource : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Read-modify-write conditional on the version read (IfMatch): after a lost race the document is
 * read again and `change` re-applied, so a concurrent change is never overwritten. `change` returns
 * undefined to leave the document as it is. Returns what is stored afterwards (undefined: missing).
 * Writers that keep losing get a retryable CONFLICT naming `what`.
 */
export async function updateDocument<D extends ItemDefinition>(
  container: Container,
  ref: { id: string; partitionKey: string; what: string },
  read: () => Promise<Versioned<D> | undefined>,
  change: (current: Versioned<D>) => D | undefined,
): Promise<D | undefined> {
  return retry<D | undefined>(
    CONFLICTS,
    async () => {
      const current = await read();
      if (current === undefined) return undefined;
      const next = change(current);
      if (next === undefined) return current;
      try {
        await container
          .item(ref.id, ref.partitionKey)
          .replace(next, { accessCondition: { type: "IfMatch", condition: current._etag ?? "" } });
        return next;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (isPreconditionFailed(error)) return AGAIN;
        throw error;
      }
    },
    () => stillContended(ref.what),
  );
}

/**
 * updateDocument for many documents at once: each round is one bulk read and one bulk conditional
 * replace, and only the documents that lost a race are read and changed again. `change` sees the
 * documents found (of those `accept` takes) together, and answers each one's new form (undefined: leave
 * it), in the same order.
 */
export async function updateDocuments<D extends ItemDefinition>(
  container: Container,
  refs: readonly DocRef[],
  accept: (doc: D) => boolean,
  change: (current: readonly Versioned<D>[]) => Promise<readonly (D | undefined)[]>,
  what: string,
): Promise<void> {
  let pending = refs;
  await retry<undefined>(
    CONFLICTS,
    async () => {
      const found = await bulkRead<D>(container, pending, true);
      const current = pending.flatMap((ref) => {
        const doc: Versioned<D> | undefined = found.get(refKey(ref));
        return doc !== undefined && accept(doc) ? [{ ref, doc }] : [];
      });
      const next = await change(current.map((c) => c.doc));
      const writes = current.flatMap(({ ref, doc }, i) => {
        const body = next[i];
        const etag: string = doc._etag ?? "";
        return body === undefined ? [] : [{ ref, body, etag }];
      });
      const results = await bulkWithRetry(
        container,
        writes.map(({ ref, body, etag }) => ({
          operationType: BulkOperationType.Replace,
          id: ref.id,
          partitionKey: ref.partitionKey,
          resourceBody: body,
          ifMatch: etag,
        })),
      );
      const raced: DocRef[] = [];
      results.forEach((result, i) => {
        const write = writes[i];
        if (write === undefined || result.statusCode === 404) return;
        if (result.statusCode === 412) raced.push(write.ref);
        else if (result.statusCode < 200 || result.statusCode > 299)
          throw new Error(`updating ${what} failed with ${result.statusCode}`);
      });
      pending = raced;
      return raced.length > 0 ? AGAIN : undefined;
    },
    () => stillContended(what),
  );
}
