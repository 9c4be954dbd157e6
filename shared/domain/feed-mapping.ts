import Decimal from "decimal.js";
import { fixGroupPath } from "./fix-groups";
import type { SourceRecord } from "./source-record";
import type { FeedDefinition, MappingRule } from "./feed";
import { recordFields, type FieldKind } from "./feed-fields";
import { parseSourcePath, resolvePath, STRUCTURE, type PathSegment } from "./feed-source-path";
import { dateReader, numberReader } from "./feed-values";
import { recordSchemas } from "./import-payload";
import { printable, unstorableIn } from "./storable";

/** A problem with one record of a file: `field` is the target field, `column` the source it came from. */
export interface RowError {
  row: number;
  field: string;
  column?: string;
  message: string;
}

/** A source record after mapping: an import record that passed the import's own schema, or its row errors. */
export type MappedRow =
  { ok: true; row: number; record: Record<string, unknown> } | { ok: false; row: number; errors: RowError[] };

/**
 * Maps source records to import records of one feed; built once per file. `header` takes the file's
 * column names (csv, xlsx) before the first record: each mapped column the header lacks is one error
 * (row 0) naming it and listing the header, and no row repeats it.
 */
export type RecordMapper = ((source: SourceRecord) => MappedRow) & {
  header(columns: readonly string[]): RowError[];
};

type Converted = { value: unknown } | { error: string };

interface FieldRule {
  target: string;
  column?: string;
  /** A header column (csv, xlsx): the file's header must have it. */
  headerColumn?: string;
  /** Says where a missing value was looked for. */
  where?: string;
  /** Says how to find a missing value that is elsewhere (a FIX tag that lives in a repeating group). */
  hint?: string;
  produce(values: Record<string, unknown>): Converted | undefined;
}

const ABSENT = undefined;

const listed = (keys: string[]): string =>
  (keys.length <= 10 ? keys : [...keys.slice(0, 10), "…"]).map((k) => JSON.stringify(k)).join(", ");

// Quoted as written (a file's text may hold what no store can: written as \u{…} escapes instead).
const shown = (raw: unknown): string =>
  printable((raw instanceof Date ? raw.toISOString() : (JSON.stringify(raw) ?? String(raw))).slice(0, 100));

type Feed = Pick<FeedDefinition, "dataType" | "format" | "options" | "mapping">;

function compileRule(feed: Feed, target: string, kind: FieldKind, entry: string | MappingRule): FieldRule {
  const rule = typeof entry === "string" ? { source: entry } : entry;
  if (rule.source === undefined) {
    const constant = rule.value;
    return { target, produce: () => ({ value: constant }) };
  }
  const column = rule.source;
  let read: (values: Record<string, unknown>) => unknown;
  let where: string;
  let hint: string | undefined;
  const tabular = feed.format === "csv" || feed.format === "xlsx";
  if (tabular) {
    // Own properties only: a column named "constructor" must not read Object's.
    read = (values) => (Object.hasOwn(values, column) ? values[column] : undefined);
    where = `column "${column}"`;
  } else {
    const path = parseSourcePath(column, feed.format === "fix");
    // The feed's schema rejects malformed paths when it is saved; this guards a stored feed only.
    if (typeof path === "string") throw new Error(`mapping.${target}: ${path}`);
    read = (values) => resolvePath(values, path);
    where = feed.format === "fix" ? `tag ${column}` : `"${column}"`;
    if (feed.format === "fix") hint = groupHint(path);
  }
  const map = "map" in rule ? rule.map : undefined;
  const multiply = "multiply" in rule && rule.multiply !== undefined ? new Decimal(rule.multiply) : undefined;
  const dateFormat = ("format" in rule ? rule.format : undefined) ?? feed.options.dateFormat;
  const toNumber = numberReader(feed.options);
  const toDate = dateReader(dateFormat);
  const convert = (raw: unknown): Converted => {
    if (kind === "number") {
      const n =
        typeof raw === "number"
          ? Number.isFinite(raw)
            ? raw
            : undefined
          : typeof raw === "string"
            ? toNumber(raw)
            : undefined;
      if (n === undefined) return { error: `${shown(raw)} is not a number` };
      return { value: multiply === undefined ? n : new Decimal(n).times(multiply).toNumber() };
    }
    if (kind === "date") {
      const day = toDate(raw);
      return day === undefined
        ? {
            error: `${shown(raw)} is not a date${dateFormat === undefined ? " (YYYY-MM-DD)" : ` in the format ${dateFormat}`}`,
          }
        : { value: day };
    }
    const text = raw instanceof Date ? toDate(raw) : typeof raw === "string" ? raw : String(raw);
    // What no store can hold is a row error here, like any other bad value (one regex test per text cell).
    const unstorable = text === undefined ? undefined : unstorableIn(text);
    return unstorable === undefined ? { value: text } : { error: unstorable };
  };
  return {
    target,
    column,
    ...(tabular ? { headerColumn: column } : {}),
    where,
    ...(hint !== undefined ? { hint } : {}),
    produce(values) {
      let raw = read(values);
      if (raw === STRUCTURE) return { error: `${where} holds a nested structure, not a value` };
      if (typeof raw === "string") raw = raw.trim();
      if (raw === undefined || raw === null || raw === "") return ABSENT;
      if (map !== undefined) {
        const key =
          raw instanceof Date
            ? (toDate(raw) ?? "")
            : typeof raw === "string" || typeof raw === "number" || typeof raw === "boolean" || typeof raw === "bigint"
              ? String(raw)
              : JSON.stringify(raw);
        if (!Object.hasOwn(map, key))
          return { error: `${shown(key)} is not in the mapping's map (known: ${listed(Object.keys(map))})` };
        raw = map[key];
      }
      return convert(raw);
    },
  };
}

/** For a plain FIX tag that lives only inside repeating groups (704 in NoPositions): which group, and the selector that reads it. */
function groupHint(path: readonly PathSegment[]): string | undefined {
  const only = path.length === 1 ? path[0] : undefined;
  if (only === undefined || !("key" in only)) return undefined;
  const found = fixGroupPath(only.key);
  if (found === undefined) return undefined;
  const groups = found.groups.map((g) => `${g.tag} (${g.name})`).join(" › ");
  return `tag ${only.key} is found only inside the repeating group${found.groups.length > 1 ? "s" : ""} ${groups}; name its entry with a selector, e.g. ${found.selector}`;
}

/**
 * Builds the mapper of a feed: each target field takes its source (or constant), translated by
 * `map`, read as the import record's schema types it (numbers with the feed's separators, then
 * `multiply`; dates into YYYY-MM-DD), and the whole record is then checked by the import's own
 * record schema, its issues becoming row errors of the target fields.
 */
export function compileMapping(feed: Feed): RecordMapper {
  const fields = recordFields(feed.dataType);
  const rules: FieldRule[] = [];
  for (const [target, entry] of Object.entries(feed.mapping)) {
    const kind = fields.get(target);
    if (kind === undefined) throw new Error(`mapping.${target}: not a field of a ${feed.dataType} record`);
    rules.push(compileRule(feed, target, kind, entry));
  }
  const byTarget = new Map(rules.map((r) => [r.target, r]));
  const order = new Map(rules.map((r, i) => [r.target, i]));
  const rank = (e: RowError): number => order.get(e.field.split(".")[0] ?? "") ?? rules.length;
  const schema = recordSchemas[feed.dataType];
  // Target fields whose column the file's header lacks: reported once, at row 0, never per row.
  const headless = new Set<string>();

  const header = (columns: readonly string[]): RowError[] => {
    const present = new Set(columns);
    const missing = rules.filter((r) => r.headerColumn !== undefined && !present.has(r.headerColumn));
    for (const r of missing) headless.add(r.target);
    const listedColumns = listed(columns.map(printable));
    return missing.map((r) => ({
      row: 0,
      field: r.target,
      column: r.headerColumn ?? "",
      message: `the mapped column ${JSON.stringify(r.headerColumn)} is not in the file's header (its columns: ${listedColumns})`,
    }));
  };

  const map = ({ row, values }: SourceRecord): MappedRow => {
    const record: Record<string, unknown> = {};
    let errors: RowError[] | undefined;
    let unfound: FieldRule[] | undefined;
    for (const rule of rules) {
      const out = rule.produce(values);
      if (out === undefined) {
        if (rule.hint !== undefined) (unfound ??= []).push(rule);
        continue;
      }
      if ("error" in out) {
        (errors ??= []).push({
          row,
          field: rule.target,
          ...(rule.column !== undefined ? { column: rule.column } : {}),
          message: out.error,
        });
      } else record[rule.target] = out.value;
    }
    const parsed = schema.safeParse(record);
    if (parsed.success && errors === undefined) return { ok: true, row, record: parsed.data };
    const all = errors ?? [];
    const failed = new Set(all.map((e) => e.field));
    for (const issue of parsed.error?.issues ?? []) {
      const field = issue.path.length === 0 ? "record" : issue.path.map(String).join(".");
      const top = String(issue.path[0] ?? "");
      // A field that could not be read already has its error; the schema would only add "required",
      // and a check between fields ("securityId or isin") on an absent field would blame the hole. A
      // field whose column the header lacks has its one error at row 0.
      if (failed.has(top) || (failed.size > 0 && issue.code === "custom" && !(top in record))) continue;
      if (headless.size > 0 && !(top in record) && (headless.has(top) || issue.code === "custom")) continue;
      const rule = byTarget.get(top);
      let message = issue.message;
      if (issue.code !== "custom" && issue.path.length === 1 && !(top in record)) {
        message =
          rule === undefined
            ? "is required, and the feed's mapping does not map it"
            : `is required, but ${rule.where ?? "the mapping"} has no value${rule.hint !== undefined ? `: ${rule.hint}` : ""}`;
      }
      all.push({ row, field, ...(rule?.column !== undefined ? { column: rule.column } : {}), message });
    }
    // A rejected row says where a group member it looked for in vain is, whichever error it led to
    // (an alternative such as portfolioCode fails as "portfolioId or portfolioCode is required").
    for (const rule of unfound ?? []) {
      if (!all.some((e) => e.field === rule.target))
        all.push({
          row,
          field: rule.target,
          ...(rule.column !== undefined ? { column: rule.column } : {}),
          message: `${rule.where ?? "the mapping"} has no value: ${rule.hint ?? ""}`,
        });
    }
    // In the mapping's order, whichever step found them.
    return { ok: false, row, errors: all.sort((a, b) => rank(a) - rank(b)) };
  };
  return Object.assign(map, { header });
}
