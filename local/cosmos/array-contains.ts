/**
 * ARRAY_CONTAINS at the cost Cosmos DB's index gives it. The stand-in's query engine compares the value
 * with every element (a deep comparison each), so `ARRAY_CONTAINS(@ids, c.id)` or an EXISTS over a
 * document's array against a list of 2,000 ids cost 2,000 comparisons per document and element. Here a
 * list of plain values is turned into a Set once per query and each look-up is one `has`; anything else
 * (objects, partial matches) still goes to the engine's own function. Same answers, by construction:
 * for plain values the engine's deepEqual is `===`, which is what a Set tests (NaN aside, which JSON
 * cannot carry).
 */
type Builtin = (...args: unknown[]) => unknown;

const isPlain = (v: unknown): boolean =>
  v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** Sets built during the current query: arrays cannot change while one query runs (it runs synchronously). */
let sets = new WeakMap<readonly unknown[], Set<unknown> | null>();

/** Forgets the Sets of the previous query: called as each query starts, so a later write is always seen. */
export function startQuery(): void {
  sets = new WeakMap();
}

function setOf(array: readonly unknown[]): Set<unknown> | null {
  let set = sets.get(array);
  if (set === undefined) {
    set = array.every(isPlain) ? new Set(array) : null;
    sets.set(array, set);
  }
  return set;
}

let installed = false;

/** Replaces the engine's ARRAY_CONTAINS (looked up on this module object by every compiled query). Once per process. */
export function installArrayContains(builtins: Record<string, unknown>): void {
  if (installed) return;
  const original = builtins["ARRAY_CONTAINS"];
  if (typeof original !== "function") throw new Error("@zeit/cosmosdb-query has no ARRAY_CONTAINS builtin to replace");
  installed = true;
  const engine = original as Builtin;
  builtins["ARRAY_CONTAINS"] = (...args: unknown[]): unknown => {
    const [array, value, partial] = args;
    // Short arrays gain nothing from a Set.
    if (
      (args.length === 2 || (args.length === 3 && partial === false)) &&
      Array.isArray(array) &&
      array.length > 8 &&
      isPlain(value)
    ) {
      const set = setOf(array as unknown[]);
      if (set !== null) return set.has(value);
    }
    return engine(...args);
  };
}
