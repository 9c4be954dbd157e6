/**
 * The rows of the `<table>_versions` tables: a current document's version is the open row (recorded_to
 * null), and closes its previous version's rows; a closed copy from the `versions` container is the
 * closed row. A version's rows are keyed by the record's key and its version, so the open row and the
 * closed row of one version are the same rows, whichever change arrives first.
 */
import { z } from "zod";
import { BEFORE_VERSIONS } from "../versions";
import type { Row } from "./column-values";
import type { RowGroup, VersionClose } from "./projection";
import { versionedTables, versionsOf, type VersionedTableName } from "./versions-tables";

/** Which version a stored document is, when and by whom it was recorded. */
export interface VersionMeta {
  version: number;
  from: string;
  by: string;
}

const recorded = z.object({ version: z.number().int().min(1), at: z.string(), by: z.string() }).loose();

/** A current document's version; one stored before versions existed is version 1, known from the beginning. */
export function versionMetaOf(doc: Record<string, unknown>): VersionMeta {
  const parsed = recorded.safeParse(doc.recorded);
  return parsed.success
    ? { version: parsed.data.version, from: new Date(Date.parse(parsed.data.at)).toISOString(), by: parsed.data.by }
    : { version: 1, from: BEFORE_VERSIONS, by: "unknown" };
}

const isVersioned = (name: string): name is VersionedTableName => name in versionedTables;

/** The version rows of a document's groups (those of the versioned tables), open or closed at `recordedTo`. */
export function versionGroups(groups: readonly RowGroup[], meta: VersionMeta, recordedTo: string | null): RowGroup[] {
  return groups.flatMap((g) => {
    if (g.table.schema !== "analytics" || !isVersioned(g.table.name)) return [];
    const columns: Row = {
      version: meta.version,
      recorded_from: meta.from,
      recorded_to: recordedTo,
      recorded_by: meta.by.slice(0, 200),
    };
    return [
      {
        table: versionsOf(g.table.name),
        key: { ...g.key, version: meta.version },
        rows: g.rows.map((row) => ({ ...row, ...columns })),
        ...(recordedTo === null ? { keepClosed: true as const } : {}),
      },
    ];
  });
}

/** What a current document's version closes: its previous version's rows, where still open. */
export function closesOf(groups: readonly RowGroup[], meta: VersionMeta): VersionClose[] {
  if (meta.version < 2) return [];
  return groups.flatMap((g) =>
    g.table.schema === "analytics" && isVersioned(g.table.name)
      ? [{ table: versionsOf(g.table.name), key: g.key, version: meta.version - 1, at: meta.from }]
      : [],
  );
}

/** A closed copy in the `versions` container: the stored document and when its version ended. */
export const closedCopy = z.object({
  kind: z.string(),
  version: z.number().int().min(1),
  recordedFrom: z.string(),
  recordedTo: z.string(),
  doc: z.record(z.string(), z.unknown()),
});

/** The container and document type a kind of record lives in. */
export const kindSources = {
  portfolio: { source: "portfolios", docType: "portfolio" },
  security: { source: "securities", docType: "security" },
  price: { source: "prices", docType: "price" },
  fx: { source: "fxRates", docType: "fx" },
  snapshot: { source: "positions", docType: "snapshot" },
  transaction: { source: "transactions", docType: "transaction" },
} as const;
