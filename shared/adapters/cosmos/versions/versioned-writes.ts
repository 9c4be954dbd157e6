import { BulkOperationType, type Container, type JSONObject, type OperationInput } from "@azure/cosmos";
import type { WriteContext } from "../../../domain/versions";
import { currentWriteContext } from "../../../observability/write-context";
import type { Clock } from "../../../ports/clock";
import { bulkRead, bulkWithRetry, refKey, type BulkResult, type DocRef } from "../bulk";
import { stripSystem } from "../cosmos-errors";
import { AGAIN, CONFLICTS, retry, stillContended } from "../retry";
import { nextRecorded, recordedOf, type Recorded, type WithRecorded } from "./recorded";
import { closeCopies, createCopies } from "./version-copies";
import { versionCopy, type VersionedKind } from "./version-docs";

/** A stored document as read, with the version it was read at. */
export type Current<D> = D & WithRecorded & { _etag?: string };

/**
 * Rewrite the document as `doc`, in place: a new ETag (for writers that compare it), the version it is
 * (`recorded`) unchanged, no version recorded. For the document as it is, or for bookkeeping that states
 * its own instant in the document (so a read as at an earlier instant can tell it did not apply yet),
 * such as a portfolio's pending flag.
 */
export class InPlace<D> {
  constructor(readonly doc: D) {}
}
export const inPlace = <D>(doc: D): InPlace<D> => new InPlace(doc);

/**
 * What a change makes of the current document (undefined: none): its new form (without `recorded`; a
 * version is recorded), inPlace(doc), or undefined to leave it alone.
 */
export type Change<D> = (current: Current<D> | undefined, index: number) => D | InPlace<D> | undefined;

export interface VersionedOutcome<D> {
  outcome: "created" | "updated" | "unchanged" | "touched" | "raced";
  /** The document stored afterwards (undefined: none, or lost to another writer). */
  stored: (D & WithRecorded) | undefined;
  /** When the version this write recorded was recorded. */
  recordedAt?: string;
}

export interface VersionedTarget<D> {
  container: Container;
  versions: Container;
  kind: VersionedKind<D>;
  clock: Clock;
}

export interface VersionedWriteOptions<D> {
  /**
   * Create without reading first (most writes of the kind are new records, as a price import's): a
   * record that exists answers 409 and is read and changed in the next round.
   */
  createFirst?: boolean;
  /** Documents the caller read just before (with their ETags), in place of the first round's read; undefined: none stored. */
  known?: (index: number) => Current<D> | undefined;
  /** Lost races are read again and changed again (default); false: reported as `raced`. */
  retryRaces?: boolean;
  /** What this write adds to the current write context, per document (e.g. the job a valuation is for). */
  contextOf?: (index: number) => Partial<WriteContext>;
  /** Called with each round's documents (as read) before `change` sees them: what the change depends on, asked after the read. */
  beforeChange?: (current: readonly (Current<D> | undefined)[]) => Promise<void>;
}

interface Plan<D> {
  index: number;
  ref: DocRef;
  current: Current<D> | undefined;
  body: (D & WithRecorded) | undefined;
  recorded: Recorded | undefined;
  /** inPlace: what is written over the current document, at its version. */
  rewritten?: D & WithRecorded;
}

const ok = (r: BulkResult | undefined): boolean => r !== undefined && r.statusCode >= 200 && r.statusCode <= 299;
const lost = (r: BulkResult | undefined): boolean =>
  r !== undefined && (r.statusCode === 409 || r.statusCode === 412 || r.statusCode === 404);

/**
 * Writes documents so that every change leaves the version it replaces in the `versions` container.
 * Creating a record costs nothing extra: its version metadata (`recorded`) is in the document. A change
 * takes three steps, each one bulk round for all the documents of the call:
 *
 * 1. the version being replaced is copied into `versions` with `recordedTo: null` (created only if
 *    absent: every writer copies the same bytes, and a copy already closed stays closed);
 * 2. the current document is replaced, conditional on the version read (a lost race reads again);
 * 3. the copy is closed: `recordedTo` = the new version's `recordedAt`, known only once step 2 won.
 *
 * So a record is never visible without its previous version stored, and a crash leaves at worst a copy
 * not yet closed: of the still-current version (step 2 never happened; reads know it by its version
 * number, the current document's) or of a replaced one (step 3 never happened; reads find its end in
 * the next version, and the record's next change closes it). Nothing is doubled: ids are deterministic.
 */
export async function writeVersioned<D extends object>(
  target: VersionedTarget<D>,
  refs: readonly DocRef[],
  change: Change<D>,
  options: VersionedWriteOptions<D> = {},
): Promise<VersionedOutcome<D>[]> {
  const outcomes = new Array<VersionedOutcome<D>>(refs.length);
  let pending = refs.map((ref, index) => ({ ref, index }));
  let round = 0;
  if (pending.length === 0) return outcomes;
  return retry(
    CONFLICTS,
    async () => {
      round++;
      const current = await currentOf(target.container, pending, round, options);
      await options.beforeChange?.(pending.map((p) => current.get(p.index)));
      const now = target.clock.now().getTime();
      const base = currentWriteContext();
      const plans: Plan<D>[] = [];
      for (const { ref, index } of pending) {
        const before = current.get(index);
        const next = change(before, index);
        if (next === undefined || (next instanceof InPlace && before === undefined)) {
          outcomes[index] = { outcome: "unchanged", stored: before === undefined ? undefined : clean(before) };
          continue;
        }
        if (before !== undefined && next instanceof InPlace) {
          plans.push({
            index,
            ref,
            current: before,
            body: undefined,
            recorded: undefined,
            rewritten: rewrite(before, next),
          });
          continue;
        }
        const context = { ...base, ...options.contextOf?.(index) };
        const recorded = nextRecorded(before === undefined ? undefined : recordedOf(before), context, now);
        const { recorded: _r, ...data } = clean(next as D & WithRecorded);
        plans.push({ index, ref, current: before, body: { ...data, recorded } as D & WithRecorded, recorded });
      }
      const replaced = plans.filter((p) => p.body !== undefined && p.current !== undefined);
      // Step 1: the versions being replaced, before anything replaces them.
      await createCopies(
        target.versions,
        replaced.map((p) => versionCopy(target.kind, p.current as Current<D>, null)),
      );
      // Step 2: the records, each conditional on the version read (a new one only where none was).
      const results = await bulkWithRetry(
        target.container,
        plans.map((p): OperationInput => {
          const body = (p.body ?? p.rewritten) as unknown as JSONObject;
          return p.current === undefined
            ? { operationType: BulkOperationType.Create, partitionKey: p.ref.partitionKey, resourceBody: body }
            : {
                operationType: BulkOperationType.Replace,
                id: p.ref.id,
                partitionKey: p.ref.partitionKey,
                resourceBody: body,
                ifMatch: p.current._etag ?? "",
              };
        }),
      );
      const raced: typeof pending = [];
      const won: Plan<D>[] = [];
      plans.forEach((p, i) => {
        const result = results[i];
        if (ok(result)) won.push(p);
        else if (lost(result)) raced.push({ ref: p.ref, index: p.index });
        else
          throw new Error(
            `writing ${target.container.id}/${p.ref.id} failed with ${result?.statusCode ?? "no answer"}`,
          );
      });
      // Step 3: the copies closed at their successors' instants, and any copy a crash left open before them.
      await closeCopies(
        target.versions,
        won.flatMap((p) =>
          p.current === undefined || p.recorded === undefined
            ? []
            : [versionCopy(target.kind, p.current, p.recorded.at)],
        ),
      );
      for (const p of won) {
        outcomes[p.index] =
          p.body === undefined
            ? { outcome: "touched", stored: p.rewritten }
            : {
                outcome: p.current === undefined ? "created" : "updated",
                stored: p.body,
                recordedAt: p.recorded?.at ?? "",
              };
      }
      if (raced.length > 0 && options.retryRaces === false) {
        for (const r of raced) outcomes[r.index] = { outcome: "raced", stored: undefined };
        return outcomes;
      }
      pending = raced;
      return raced.length > 0 ? AGAIN : outcomes;
    },
    () => stillContended(`${target.kind.kind} ${pending[0]?.ref.id ?? ""}`),
  );
}

/** The stored documents the round changes: none on a create-first round, the caller's on the first, else read. */
async function currentOf<D extends object>(
  container: Container,
  pending: readonly { ref: DocRef; index: number }[],
  round: number,
  options: VersionedWriteOptions<D>,
): Promise<Map<number, Current<D> | undefined>> {
  const out = new Map<number, Current<D> | undefined>();
  if (round === 1 && options.createFirst === true) return out;
  if (round === 1 && options.known !== undefined) {
    for (const { index } of pending) out.set(index, options.known(index));
    return out;
  }
  const found = await bulkRead<Current<D>>(
    container,
    pending.map((p) => p.ref),
    true,
  );
  for (const { ref, index } of pending) out.set(index, found.get(refKey(ref)));
  return out;
}

/** What inPlace(doc) writes over `before`: at its version, never with a new one. */
function rewrite<D extends object>(before: Current<D>, next: InPlace<D>): D & WithRecorded {
  const { recorded: _r, ...data } = clean(next.doc as D & WithRecorded);
  return { ...data, ...(before.recorded !== undefined ? { recorded: before.recorded } : {}) } as D & WithRecorded;
}

const clean = <T extends object>(doc: T): T => {
  const { _etag: _e, ...rest } = stripSystem(doc) as T & { _etag?: string };
  return rest as T;
};
