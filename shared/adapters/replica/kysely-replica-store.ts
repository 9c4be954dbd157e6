import type { ColumnValue } from "../../domain/replica/column-values";
import type { DocumentProjection, HoldingsRun, ReplicaSource, RowGroup } from "../../domain/replica/projection";
import { replicaSourceNames } from "../../domain/replica/projection";
import { biTables } from "../../domain/replica/versions-tables";
import type { TableDefinition } from "../../domain/replica/table-types";
import type { Clock } from "../../ports/clock";
import {
  ReplicaRejected,
  type ReplicaApplied,
  type ReplicaContents,
  type ReplicaStore,
} from "../../ports/replica-store";
import type { ReplicaDb, ReplicaEngine } from "./replica-sql";
import { refusedValue, retryingTransient } from "./replica-errors";
import {
  appliedPerSource,
  chunksOf,
  closedKeys,
  closeVersion,
  copyStagedRuns,
  countRows,
  deleteGroups,
  deleteHoldings,
  documents,
  dropStagedRuns,
  insertRows,
  mergeSources,
  mergeVersions,
  rowsPerStatement,
  stagedRuns,
  type SourceRow,
  type VersionRow,
} from "./replica-statements";

export interface KyselyReplicaStoreDeps {
  engine: ReplicaEngine;
  /** The connection pool, opened on first use. */
  db: () => Promise<ReplicaDb>;
  /** Creates or completes the schema (idempotent); resolves once it is there. */
  ensureSchema: () => Promise<void>;
  clock: Clock;
}

const dateText = (value: unknown): string => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
const numberOf = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const timestampText = (value: unknown): string | null => {
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== "string") return null;
  // SQL Server's datetime2 comes back without a zone: it holds UTC.
  const ms = Date.parse(/(Z|[+-]\d\d(:?\d\d)?)$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

/** The replica over Kysely: the same statements on Azure SQL Database (tedious) and PostgreSQL (pg). */
export class KyselyReplicaStore implements ReplicaStore {
  constructor(private readonly deps: KyselyReplicaStoreDeps) {}

  async apply(projections: readonly DocumentProjection[]): Promise<ReplicaApplied> {
    if (projections.length === 0) return { applied: 0, unchanged: 0 };
    await this.deps.ensureSchema();
    const db = await this.deps.db();
    // A document appears once per change-feed page; across merged pages only its newest version counts.
    const newest = new Map<string, DocumentProjection>();
    const unversioned: DocumentProjection[] = [];
    for (const p of projections) {
      if (p.version === undefined) unversioned.push(p);
      else if ((newest.get(p.version.docKey)?.version?.lsn ?? -1) < p.version.lsn) newest.set(p.version.docKey, p);
    }
    const versioned = [...newest.values()];
    try {
      return await this.transaction(db, versioned, unversioned);
    } catch (error) {
      const refused = refusedValue(error);
      if (refused !== undefined) throw new ReplicaRejected(refused, { cause: error });
      throw error;
    }
  }

  private transaction(
    db: ReplicaDb,
    versioned: readonly DocumentProjection[],
    unversioned: readonly DocumentProjection[],
  ): Promise<ReplicaApplied> {
    return retryingTransient(() =>
      db.transaction().execute(async (trx) => {
        const rows: VersionRow[] = versioned.map((p) => ({
          doc_key: Buffer.from(p.version?.docKey ?? "", "hex"),
          version: p.version?.lsn ?? 0,
        }));
        const actions = new Map<string, string>();
        for (const part of rowsPerStatement(this.deps.engine, documents, rows)) {
          const changed = (await mergeVersions(trx, this.deps.engine, part).execute()) as {
            doc_key: Buffer;
            action: string;
          }[];
          for (const r of changed) actions.set(Buffer.from(r.doc_key).toString("hex"), r.action.toUpperCase());
        }
        const accepted = versioned.filter((p) => actions.has(p.version?.docKey ?? ""));
        // A first version has no rows to replace: only a document seen before needs its old rows deleted.
        const first = (p: DocumentProjection): boolean => actions.get(p.version?.docKey ?? "") === "INSERT";
        const insertOnly = (p: DocumentProjection): boolean => first(p) && p.overwrites !== true;
        await this.writeGroups(
          trx,
          [...unversioned, ...accepted.filter((p) => !insertOnly(p))].flatMap((p) => p.groups),
          "replace",
        );
        await this.writeGroups(
          trx,
          accepted.filter(insertOnly).flatMap((p) => p.groups),
          "insert",
        );
        for (const close of accepted.flatMap((p) => p.closes ?? []))
          await closeVersion(trx, this.deps.engine, close).execute();
        await this.materialize(
          trx,
          accepted.flatMap((p) => (p.holdingsRun === undefined ? [] : [p.holdingsRun])),
        );
        await this.count(trx, accepted, first);
        return { applied: accepted.length + unversioned.length, unchanged: versioned.length - accepted.length };
      }),
    );
  }

  /** Each source container's progress: documents seen for the first time, the newest `_ts` applied. */
  private async count(
    db: ReplicaDb,
    accepted: readonly DocumentProjection[],
    first: (p: DocumentProjection) => boolean,
  ): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    const bySource = new Map<string, SourceRow>();
    for (const p of accepted) {
      const row = bySource.get(p.source) ?? { container: p.source, documents: 0, newest_ts: 0, last_projected_at: now };
      bySource.set(p.source, {
        ...row,
        documents: row.documents + (first(p) ? 1 : 0),
        newest_ts: Math.max(row.newest_ts, p.version?.ts ?? 0),
      });
    }
    if (bySource.size > 0) await mergeSources(db, this.deps.engine, [...bySource.values()]).execute();
  }

  /** Per table, the groups' old rows deleted (when replacing) and their rows inserted, in batches within the parameter limit. */
  private async writeGroups(db: ReplicaDb, groups: readonly RowGroup[], mode: "replace" | "insert"): Promise<void> {
    const byTable = new Map<TableDefinition, RowGroup[]>();
    for (const g of await this.withoutClosed(db, groups)) {
      const list = byTable.get(g.table);
      if (list === undefined) byTable.set(g.table, [g]);
      else list.push(g); // not a copy per group: a backfill batch has thousands in one table
    }
    for (const [table, tableGroups] of byTable) {
      if (mode === "replace") {
        const keys = tableGroups.map((g) => g.key);
        for (const part of chunksOf(keys, Object.keys(keys[0] ?? {}).length, this.deps.engine))
          await deleteGroups(db, this.deps.engine, table, part).execute();
      }
      const rows = tableGroups.flatMap((g) => g.rows);
      for (const part of rowsPerStatement(this.deps.engine, table, rows))
        await insertRows(db, this.deps.engine, table, part).execute();
    }
  }

  /** Open versions' groups whose version is closed already are left out: a late change never reopens one. */
  private async withoutClosed(db: ReplicaDb, groups: readonly RowGroup[]): Promise<readonly RowGroup[]> {
    const open = groups.filter((g) => g.keepClosed === true);
    if (open.length === 0) return groups;
    const closed = new Set<string>();
    const keyText = (table: TableDefinition, key: Record<string, unknown>, columns: readonly string[]): string =>
      `${table.name}|${columns.map((c) => (key[c] instanceof Date ? dateText(key[c]) : String(key[c]))).join("|")}`;
    for (const table of new Set(open.map((g) => g.table))) {
      const keys = open.filter((g) => g.table === table).map((g) => g.key);
      const columns = Object.keys(keys[0] ?? {});
      for (const part of chunksOf(keys, columns.length, this.deps.engine))
        for (const row of (await closedKeys(db, this.deps.engine, table, part).execute()) as Record<string, unknown>[])
          closed.add(keyText(table, row, columns));
    }
    return groups.filter((g) => g.keepClosed !== true || !closed.has(keyText(g.table, g.key, Object.keys(g.key))));
  }

  /**
   * Accepted valuation headers: each portfolio-date's holdings become its run's staged rows. Staged runs
   * of an older computation are dropped; a newer computation's (its header still to come) are kept.
   */
  private async materialize(db: ReplicaDb, runs: readonly HoldingsRun[]): Promise<void> {
    if (runs.length === 0) return;
    const current = new Map(runs.map((r) => [`${r.portfolioId}|${r.date}`, r]));
    const superseded: Omit<HoldingsRun, "version">[] = [];
    for (const part of chunksOf(runs, 2, this.deps.engine)) {
      for (const s of (await stagedRuns(db, part).execute()) as Record<string, ColumnValue | Date>[]) {
        const run = current.get(`${String(s.portfolio_id)}|${dateText(s.date)}`);
        const stagedVersion = typeof s.run_version === "string" ? s.run_version : "";
        if (run !== undefined && s.run_id !== run.runId && stagedVersion <= run.version)
          superseded.push({ portfolioId: run.portfolioId, date: run.date, runId: String(s.run_id) });
      }
    }
    for (const part of chunksOf(superseded, 3, this.deps.engine)) await dropStagedRuns(db, part).execute();
    for (const part of chunksOf(runs, 2, this.deps.engine)) await deleteHoldings(db, this.deps.engine, part).execute();
    for (const part of chunksOf(runs, 3, this.deps.engine)) await copyStagedRuns(db, part).execute();
  }

  /** Row counts and what was applied, read from one snapshot of the database (they agree with each other). */
  async contents(): Promise<ReplicaContents> {
    await this.deps.ensureSchema();
    const db = await this.deps.db();
    // Azure SQL Database allows snapshot isolation (on by default there); PostgreSQL's is repeatable read.
    const snapshot = this.deps.engine === "sqlserver" ? "snapshot" : "repeatable read";
    return db
      .transaction()
      .setIsolationLevel(snapshot)
      .execute(async (trx) => {
        const tables: ReplicaContents["tables"] = [];
        for (const table of biTables) {
          const [count] = (await countRows(trx, table).execute()) as { rows: unknown }[];
          tables.push({ name: table.name, rows: Number(count?.rows ?? 0) });
        }
        const sources = Object.fromEntries(
          replicaSourceNames.map((s) => [s, { documents: 0, newestTs: null }]),
        ) as ReplicaContents["sources"];
        let lastProjectedAt: string | null = null;
        for (const row of (await appliedPerSource(trx).execute()) as Record<string, unknown>[]) {
          const source = String(row.container) as ReplicaSource;
          if (!(source in sources)) continue;
          sources[source] = { documents: Number(row.documents ?? 0), newestTs: numberOf(row.newest_ts) };
          const last = timestampText(row.last_projected_at);
          if (last !== null && (lastProjectedAt === null || last > lastProjectedAt)) lastProjectedAt = last;
        }
        return { tables, sources, lastProjectedAt };
      });
  }
}
