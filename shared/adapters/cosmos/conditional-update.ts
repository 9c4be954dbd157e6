import type { Container, ItemDefinition } from "@azure/cosmos";
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
