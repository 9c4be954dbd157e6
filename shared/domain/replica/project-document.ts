/**
 * project(): one change-feed document → the rows it owns in the replica. Documents are read
 * leniently (stored before a field existed, a field is absent or null); a document of a projected type
 * that lacks what its rows need, or holds a value no column can store, is `rejected`: the caller skips
 * it with an exception and moves on.
 */
import { z } from "zod";
import { analyticsTables, type AnalyticsTableName } from "./analytics-tables";
import { rowOf, UnprojectableValue, type Row } from "./column-values";
import {
  docKeyOf,
  replicaSources,
  type DocumentProjection,
  type ReplicaSource,
  type RowGroup,
  type Skipped,
  type VersionClose,
} from "./projection";
import { closedCopy, closesOf, kindSources, versionGroups, versionMetaOf } from "./project-versions";
import { replicaTables } from "./replica-tables";
import type { TableDefinition } from "./table-types";

const table = (name: AnalyticsTableName): TableDefinition =>
  analyticsTables.find((t) => t.name === name) as TableDefinition;
const stagedHoldings = replicaTables.find((t) => t.name === "holding_chunks") as TableDefinition;

const system = z.object({
  id: z.string(),
  docType: z.string().optional(),
  _lsn: z.number().int().optional(),
  _ts: z.number().optional(),
});
const num = z.number().nullish();
const str = z.string().nullish();

const portfolioDoc = z.object({ memberIds: z.array(z.string()).nullish() }).loose();
const snapshotDoc = z.object({
  portfolioId: z.string(),
  date: z.string(),
  positions: z.array(z.object({ securityId: z.string(), quantity: z.number(), costBasis: num, currency: str })),
});
const valuationDoc = z
  .object({ portfolioId: z.string(), date: z.string(), runId: z.string(), version: z.string().nullish() })
  .loose();
const holding = z
  .object({
    securityId: z.string(),
    isin: str,
    quantity: z.number(),
    price: num,
    priceDate: str,
    priceType: str,
    priceCurrency: str,
    fxRate: num,
    marketValue: num,
    weight: num,
  })
  .loose();
const chunkDoc = z.object({ portfolioId: z.string(), holdings: z.array(holding), version: z.string().nullish() });
const jobDoc = z
  .object({
    counts: z.object({
      received: z.number(),
      accepted: z.number(),
      rejected: z.number(),
      removed: z.number().optional(),
    }),
    file: z.object({ container: z.string(), name: z.string(), sha256: z.string() }).optional(),
  })
  .loose();
const exceptionDoc = z.object({ entity: z.object({ type: z.string(), id: z.string() }) }).loose();

/** camelCase field → snake_case column, the naming rule of the whole schema (remembered: the fields are few). */
const columnNames = new Map<string, string>();
const snake = (field: string): string => {
  let column = columnNames.get(field);
  if (column === undefined) {
    column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    // Bounded: a document with odd field names cannot grow the map without end.
    if (columnNames.size < 10_000) columnNames.set(field, column);
  }
  return column;
};

/** A row whose columns are the document's fields of the same name (in snake_case). */
function fieldsRow(
  target: TableDefinition,
  doc: Record<string, unknown>,
  warn: (m: string) => void,
  extra: Record<string, unknown> = {},
): Row {
  const values: Record<string, unknown> = {};
  for (const field in doc) values[snake(field)] = doc[field];
  for (const column in extra) values[column] = extra[column];
  return rowOf(target, values, warn);
}

type Groups = (
  doc: Record<string, unknown>,
  warn: (m: string) => void,
) => Pick<DocumentProjection, "groups" | "holdingsRun">;

const one =
  (name: AnalyticsTableName, keyOf: (row: Row) => Row): Groups =>
  (doc, warn) => {
    const row = fieldsRow(table(name), doc, warn);
    return { groups: [{ table: table(name), key: keyOf(row), rows: [row] }] };
  };
const byId = (name: AnalyticsTableName): Groups => one(name, (row) => ({ id: row.id ?? null }));

/** What each projected document type owns, per container. */
const projections: Record<ReplicaSource, Record<string, Groups>> = {
  portfolios: {
    portfolio: (doc, warn) => {
      const row = fieldsRow(table("portfolios"), doc, warn);
      const members = portfolioDoc.parse(doc).memberIds ?? [];
      const memberRows = [...new Set(members)].map((member) =>
        rowOf(table("portfolio_members"), { portfolio_id: row.id, member_id: member }, warn),
      );
      const groups: RowGroup[] = [
        { table: table("portfolios"), key: { id: row.id ?? null }, rows: [row] },
        // Every member row of the portfolio: a member dropped by an update goes too.
        { table: table("portfolio_members"), key: { portfolio_id: row.id ?? null }, rows: memberRows },
      ];
      return { groups };
    },
  },
  securities: { security: byId("securities") },
  prices: {
    price: one("prices", (r) => ({
      security_id: r.security_id ?? null,
      date: r.date ?? null,
      type: r.type ?? null,
      source: r.source ?? null,
    })),
  },
  fxRates: {
    fx: one("fx_rates", (r) => ({
      base_currency: r.base_currency ?? null,
      quote_currency: r.quote_currency ?? null,
      date: r.date ?? null,
      source: r.source ?? null,
    })),
  },
  positions: {
    snapshot: (doc, warn) => {
      const snapshot = snapshotDoc.parse(doc);
      const rows = snapshot.positions.map((p) =>
        fieldsRow(table("positions"), p, warn, { portfolio_id: snapshot.portfolioId, date: snapshot.date }),
      );
      // The snapshot replaces the portfolio-date whole: positions it no longer has are removed.
      return {
        groups: [{ table: table("positions"), key: { portfolio_id: snapshot.portfolioId, date: snapshot.date }, rows }],
      };
    },
    valuation: (doc, warn) => {
      const header = valuationDoc.parse(doc);
      const row = fieldsRow(table("valuations"), doc, warn);
      return {
        groups: [
          { table: table("valuations"), key: { portfolio_id: header.portfolioId, date: header.date }, rows: [row] },
        ],
        holdingsRun: {
          portfolioId: header.portfolioId,
          date: header.date,
          runId: header.runId,
          version: header.version ?? "",
        },
      };
    },
    "valuation-chunk": (doc, warn) => {
      const chunk = chunkDoc.parse(doc);
      // `val|<date>|<run>|<n>`: the chunk's date, run and number are in its id.
      const [, date, runId, index] = String(doc.id).split("|");
      if (date === undefined || runId === undefined || index === undefined)
        throw new UnprojectableValue("a valuation chunk's id is not val|<date>|<run>|<n>");
      const where = { portfolio_id: chunk.portfolioId, date, run_id: runId, chunk: Number(index) };
      const rows = chunk.holdings.map((h, ord) =>
        fieldsRow(stagedHoldings, h, warn, { ...where, ord, run_version: chunk.version ?? null }),
      );
      return { groups: [{ table: stagedHoldings, key: where, rows }] };
    },
  },
  transactions: { transaction: byId("transactions") },
  jobs: {
    job: (doc, warn) => {
      const { counts, file } = jobDoc.parse(doc);
      const row = fieldsRow(table("jobs"), doc, warn, {
        ...counts,
        removed: counts.removed ?? null,
        file_container: file?.container ?? null,
        file_path: file?.name ?? null,
        file_sha256: file?.sha256 ?? null,
      });
      return { groups: [{ table: table("jobs"), key: { id: row.id ?? null }, rows: [row] }] };
    },
  },
  exceptions: {
    exception: (doc, warn) => {
      const { entity } = exceptionDoc.parse(doc);
      const row = fieldsRow(table("exceptions"), doc, warn, { entity_type: entity.type, entity_id: entity.id });
      return { groups: [{ table: table("exceptions"), key: { id: row.id ?? null }, rows: [row] }] };
    },
  },
  versions: {
    // A closed copy: its record's rows as they were, in the version tables, closed at recordedTo.
    version: (doc, warn) => {
      const copy = closedCopy.parse(doc);
      const target = kindSources[copy.kind as keyof typeof kindSources];
      const build = projections[target.source][target.docType];
      if (build === undefined) throw new UnprojectableValue(`no projection of ${copy.kind}`);
      const meta = { ...versionMetaOf(copy.doc), version: copy.version, from: copy.recordedFrom };
      return { groups: versionGroups(build(copy.doc, warn).groups, meta, copy.recordedTo) };
    },
  },
};

/** Copies in the `versions` container the replica shows: closed ones, of the kinds it has tables of versions for. */
const isShownCopy = (doc: Record<string, unknown>): boolean =>
  typeof doc.recordedTo === "string" && typeof doc.kind === "string" && doc.kind in kindSources;

/** Why a document could not be projected, in words; anything else thrown is a surprise, still the document's alone. */
const reasonOf = (error: unknown): string => {
  if (error instanceof UnprojectableValue) return error.message;
  if (error instanceof z.ZodError) return error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  return `the projection failed: ${error instanceof Error ? error.message : String(error)}`;
};

/**
 * The rows a change-feed document of `source` puts into the replica, or why it puts none. A document
 * of a projected type that the replica cannot hold (a field missing, a value no column can store) is
 * a `rejected` projection: no rows, its version still recorded, so that the feed moves on past it.
 * A record's current document also owns its version's open row in the version tables and closes its
 * previous version's rows; a closed copy from the `versions` container owns its version's closed rows.
 */
export function project(source: ReplicaSource, document: unknown): DocumentProjection | Skipped {
  const meta = system.safeParse(document);
  if (!meta.success) return { skipped: "unreadable", reason: "not a document (no id)" };
  const doc = document as Record<string, unknown>;
  const docType = meta.data.docType ?? "";
  const build = projections[source][docType];
  if (build === undefined || (source === "versions" && !isShownCopy(doc))) return { skipped: "not-projected" };
  const partitionKey = doc[replicaSources[source]];
  const docKey = docKeyOf(source, partitionKey, meta.data.id);
  const origin = {
    id: meta.data.id,
    docType,
    partitionKey: typeof partitionKey === "string" ? partitionKey : JSON.stringify(partitionKey ?? null),
    docKey,
    ...(source === "exceptions" && doc.type === "REPLICA_REJECTED" ? { reportsRejection: true as const } : {}),
  };
  let version: DocumentProjection["version"];
  // A valuation chunk is written once, staged under its run: it has no version to order.
  if (docType !== "valuation-chunk") {
    // A change without _lsn cannot be ordered against others: applying it could undo a newer one.
    if (meta.data._lsn === undefined) return { skipped: "unreadable", reason: "the change has no _lsn" };
    version = { docKey, lsn: meta.data._lsn, ts: meta.data._ts ?? 0 };
  }
  const warnings: string[] = [];
  let built: ReturnType<Groups>;
  const groups: RowGroup[] = [];
  let closes: VersionClose[] = [];
  try {
    built = build(doc, (m) => warnings.push(m));
    groups.push(...built.groups);
    // A record's current version (a valuation chunk has none; a closed copy's rows are its version's
    // already): its open rows in the version tables, and its previous version's closed.
    if (docType !== "valuation-chunk" && source !== "versions") {
      const current = versionMetaOf(doc);
      closes = closesOf(built.groups, current);
      groups.push(...versionGroups(built.groups, current, null));
    }
  } catch (error) {
    // Whatever the cause, it is this document's: it is skipped (and reported), never the feed stopped.
    return {
      source,
      origin,
      ...(version !== undefined ? { version } : {}),
      groups: [],
      warnings: [],
      rejected: reasonOf(error),
    };
  }
  return {
    source,
    origin,
    ...(version !== undefined ? { version } : {}),
    groups,
    warnings,
    ...(built.holdingsRun !== undefined ? { holdingsRun: built.holdingsRun } : {}),
    ...(closes.length > 0 ? { closes } : {}),
    ...(source === "versions" ? { overwrites: true as const } : {}),
  };
}
