/*
 * Where a mapping's `source` points inside a source record.
 *
 * - csv, xlsx: the column header, verbatim (a header may hold dots or brackets).
 * - xml, json: a dotted path from the record, e.g. `Pos.Instrm.@isin` or `Lines[2].Amount`. A name
 *   segment may be followed by selectors: `[n]` picks the n-th entry (0-based) of a list, and
 *   `[key=value]` the first entry whose `key` (a name or `@attr`) has that text, e.g.
 *   `Ids.Id[@scheme=ISIN]`. A path that steps by name through a list (no selector) takes the list's
 *   first entry, so `A.B` reads the first `B` whether the file repeats `B` or not; for the same
 *   reason `[0]` on a single value is that value.
 * - fix: the same paths over tag numbers. A repeating group is its count tag holding the list of
 *   entries, so `702[0].704` (or just `702.704`) is LongQty of the first NoPositions entry,
 *   `702[703=TQ].704` that of the entry whose PosType is TQ, and `453[452=3].448` the PartyID whose
 *   PartyRole is 3.
 * An element's text beside attributes is read under `#text`; a path ending on such an element reads
 * its text.
 */

export type PathSegment = { key: string } | { index: number } | { match: { key: string; value: string } };

const SEGMENT = /^([^.[\]=]+)((?:\[[^\]]*\])*)$/;
const SELECTOR = /\[([^\]]*)\]/g;
const TAG = /^[1-9][0-9]{0,5}$/;

/** Parses a dotted source path; returns a message when it is malformed. */
export function parseSourcePath(source: string, tagsOnly: boolean): PathSegment[] | string {
  const segments: PathSegment[] = [];
  for (const part of source.split(".")) {
    const m = SEGMENT.exec(part);
    if (m === null) return `"${part}" is not a path segment (name, name[n] or name[key=value])`;
    const name = m[1] ?? "";
    if (tagsOnly && !TAG.test(name)) return `"${name}" is not a FIX tag number`;
    segments.push({ key: name });
    for (const sel of (m[2] ?? "").matchAll(SELECTOR)) {
      const text = sel[1] ?? "";
      if (/^[0-9]{1,6}$/.test(text)) {
        segments.push({ index: Number(text) });
        continue;
      }
      const eq = text.indexOf("=");
      const key = text.slice(0, eq);
      if (eq <= 0 || key.includes(".") || (tagsOnly && !TAG.test(key)))
        return `"[${text}]" is not a selector ([n] or [${tagsOnly ? "tag" : "name"}=value])`;
      segments.push({ match: { key, value: text.slice(eq + 1) } });
    }
  }
  return segments;
}

/** What resolvePath answers for a path that ends on a nested structure. */
export const STRUCTURE: unique symbol = Symbol("structure");

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);

const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

const textOf = (v: unknown): string | undefined => {
  const t = isRecord(v) ? (Object.hasOwn(v, "#text") ? v["#text"] : undefined) : v;
  return typeof t === "string" || typeof t === "number" || typeof t === "boolean" || typeof t === "bigint"
    ? String(t)
    : undefined;
};

/**
 * The value at `path` in `values`: undefined when the record has nothing there, STRUCTURE when the
 * path ends on a nested structure rather than a value.
 */
export function resolvePath(values: Record<string, unknown>, path: readonly PathSegment[]): unknown {
  let current: unknown = values;
  for (const seg of path) {
    if (current === undefined || current === null) return undefined;
    if ("key" in seg) {
      const holder = first(current);
      current = isRecord(holder) && Object.hasOwn(holder, seg.key) ? holder[seg.key] : undefined;
    } else if ("index" in seg) {
      current = Array.isArray(current) ? current[seg.index] : seg.index === 0 ? current : undefined;
    } else {
      const entries = Array.isArray(current) ? current : [current];
      current = entries.find((e) => isRecord(e) && textOf(e[seg.match.key]) === seg.match.value);
    }
  }
  current = first(current);
  if (isRecord(current)) return Object.hasOwn(current, "#text") ? textOf(current) : STRUCTURE;
  return current;
}
