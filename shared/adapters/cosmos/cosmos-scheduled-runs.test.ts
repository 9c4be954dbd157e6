import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { exportRunId, type StoredExportRun } from "../../domain/export-run";
import { scheduledRunId } from "../../domain/blob-source-run";
import type { StoredBlobSourceRun } from "../../ports/blob-sources";
import { blobSourceRunDocuments, CosmosScheduledRuns, exportRunDocuments } from "./cosmos-scheduled-runs";

const NOW = "2026-03-01T10:00:00.000Z";
const UNSENT_BEFORE = "2026-03-01T09:58:00.000Z";

const blobRun = (id: string, sourceId: string, fields: Partial<StoredBlobSourceRun>): StoredBlobSourceRun => ({
  id,
  blobSourceId: sourceId,
  trigger: "schedule",
  scheduledFor: "2026-03-01T09:00:00.000Z",
  status: "running",
  listed: 0,
  matched: 0,
  copied: 0,
  skipped: 0,
  files: [],
  startedAt: "2026-03-01T09:00:00.000Z",
  attempts: 0,
  ...fields,
});

const exportRun = (exportId: string, scheduledFor: string, fields: Partial<StoredExportRun>): StoredExportRun => ({
  id: exportRunId(exportId, scheduledFor, "schedule"),
  exportId,
  trigger: "schedule",
  scheduledFor,
  status: "running",
  fileName: "f.csv",
  rows: 0,
  bytes: 0,
  startedAt: scheduledFor,
  attempts: 0,
  leaseUntil: "2026-03-01T11:00:00.000Z",
  ...fields,
});

describe("CosmosScheduledRuns on the Cosmos stand-in: one adapter for the runs of exports and of blob sources", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  beforeAll(async () => {
    cosmos = await startCosmos();
  });
  afterAll(async () => cosmos.stop());

  it("claims a run id once; the history lists newest first, by scheduled time for exports and by start time for blob sources, in the documents' stored shape", async () => {
    const exportRuns = new CosmosScheduledRuns(cosmos.db.container("runs"), exportRunDocuments);
    const first = exportRun("ex_claims", "2026-01-02T07:00:00.000Z", { startedAt: "2026-01-05T00:00:00.000Z" });
    const second = exportRun("ex_claims", "2026-01-03T07:00:00.000Z", { startedAt: "2026-01-04T00:00:00.000Z" });
    expect(await Promise.all([exportRuns.claim("ex_claims", first), exportRuns.claim("ex_claims", first)])).toEqual(
      expect.arrayContaining([true, false]),
    );
    expect(await exportRuns.claim("ex_claims", second)).toBe(true);
    const listed = await exportRuns.list("ex_claims", { page: 1, pageSize: 10 });
    expect(listed).toEqual({ items: [second, first], totalItems: 2, nextCursor: null });
    // The document is what export runs were stored as before one adapter held both kinds.
    const { resource } = await cosmos.db.container("runs").item(first.id, "ex_claims").read<Record<string, unknown>>();
    expect(resource).toMatchObject({
      ...first,
      ownerId: "ex_claims",
      type: "export-run",
      sortKey: `${first.scheduledFor}|${first.id}`,
    });

    const blobRuns = new CosmosScheduledRuns(cosmos.db.container("runs"), blobSourceRunDocuments);
    const older = blobRun(scheduledRunId("bs_list", "2026-01-03T00:00:00.000Z"), "bs_list", {
      startedAt: "2026-01-01T00:00:00.000Z",
    });
    const newer = blobRun("bsr_manual", "bs_list", { trigger: "manual", startedAt: "2026-01-02T00:00:00.000Z" });
    for (const run of [older, newer]) expect(await blobRuns.claim("bs_list", run)).toBe(true);
    const page = await blobRuns.list("bs_list", { page: 1, pageSize: 1 });
    expect(page.items).toEqual([newer]);
    expect((await blobRuns.list("bs_list", { cursor: page.nextCursor!, pageSize: 1 })).items).toEqual([older]);
    // One kind never reads the other's documents, even under the same owner id.
    expect(await exportRuns.update("bs_list", newer.id, (current) => current)).toBeUndefined();
  });

  it("finds the runs no instance performs: lease over, or (runs claimed before claims had a lease) never taken and claimed before the unsent time", async () => {
    const runs = new CosmosScheduledRuns(cosmos.db.container("runs"), blobSourceRunDocuments);
    const source = "bs_abandoned";
    const stored = {
      legacyUnsent: blobRun("bsr_legacy_unsent", source, { startedAt: "2026-03-01T09:50:00.000Z" }),
      legacyRecent: blobRun("bsr_legacy_recent", source, { startedAt: "2026-03-01T09:59:00.000Z" }),
      claimOver: blobRun("bsr_claim_over", source, {
        startedAt: "2026-03-01T09:57:00.000Z",
        leaseUntil: "2026-03-01T09:59:00.000Z",
      }),
      claimLive: blobRun("bsr_claim_live", source, {
        startedAt: "2026-03-01T09:59:00.000Z",
        leaseUntil: "2026-03-01T10:01:00.000Z",
      }),
      // Waiting for its next attempt (an export whose target was busy gives its attempt back): not before its time.
      waiting: blobRun("bsr_waiting", source, {
        startedAt: "2026-03-01T08:00:00.000Z",
        leaseUntil: "2026-03-01T10:00:30.000Z",
      }),
      died: blobRun("bsr_died", source, { attempts: 1, leaseUntil: "2026-03-01T09:59:59.000Z" }),
      working: blobRun("bsr_working", source, { attempts: 2, leaseUntil: "2026-03-01T10:10:00.000Z" }),
      finished: blobRun("bsr_finished", source, {
        status: "succeeded",
        attempts: 1,
        leaseUntil: "2026-03-01T09:00:00.000Z",
        completedAt: "2026-03-01T09:00:00.000Z",
      }),
    };
    for (const run of Object.values(stored)) {
      const { leaseUntil, ...rest } = run;
      // A legacy document has no leaseUntil field at all.
      expect(await runs.claim(source, leaseUntil === undefined ? rest : run)).toBe(true);
    }
    const exportRuns = new CosmosScheduledRuns(cosmos.db.container("runs"), exportRunDocuments);
    await exportRuns.claim(
      "ex_other",
      exportRun("ex_other", "2026-03-01T09:00:00.000Z", { leaseUntil: "2026-03-01T09:00:06.000Z" }),
    );

    const found = (await runs.abandoned(NOW, UNSENT_BEFORE, 100)).filter((r) => r.blobSourceId === source);
    expect(found.map((r) => r.id).sort()).toEqual([stored.claimOver.id, stored.died.id, stored.legacyUnsent.id].sort());
    expect(found.find((r) => r.id === stored.legacyUnsent.id)).toEqual(stored.legacyUnsent);
    expect((await exportRuns.abandoned(NOW, UNSENT_BEFORE, 100)).map((r) => r.id)).toContain(
      exportRunId("ex_other", "2026-03-01T09:00:00.000Z", "schedule"),
    );
  });

  it("changes a run conditionally: a change may leave it, and a missing run is undefined", async () => {
    const runs = new CosmosScheduledRuns(cosmos.db.container("runs"), blobSourceRunDocuments);
    const run = blobRun("bsr_update", "bs_update", { leaseUntil: "2026-03-01T10:02:00.000Z" });
    await runs.claim("bs_update", run);
    expect(await runs.update("bs_update", run.id, () => undefined)).toEqual(run);
    const taken = await Promise.all(
      [1, 2].map(() =>
        runs.update("bs_update", run.id, (current) => ({ ...current, attempts: (current.attempts ?? 0) + 1 })),
      ),
    );
    expect(taken.map((r) => r?.attempts).sort()).toEqual([1, 2]);
    expect(await runs.update("bs_update", "bsr_missing", (current) => current)).toBeUndefined();
  });

  it("finds each owner's newest run in two bulk reads for a whole page, never a query per owner; owners whose runs predate the pointers are looked up once", async () => {
    const container = cosmos.db.container("runs");
    let queries = 0;
    let bulks = 0;
    // Counts what the adapter asks of the store: queries and bulk calls.
    const items = new Proxy(container.items, {
      get(target, key, receiver) {
        if (key === "query") queries++;
        if (key === "bulk") bulks++;
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const counted = new Proxy(container, {
      get: (target, key, receiver) => (key === "items" ? items : (Reflect.get(target, key, receiver) as unknown)),
    });
    const runs = new CosmosScheduledRuns(counted, exportRunDocuments);
    const owners = Array.from({ length: 20 }, (_, i) => `ex_latest_${i}`);
    const newest = new Map<string, StoredExportRun>();
    for (const owner of owners) {
      // Claimed out of order: the later scheduled time is the newest whatever was claimed last.
      const later = exportRun(owner, "2026-02-02T07:00:00.000Z", { status: "failed", error: "refused" });
      const earlier = exportRun(owner, "2026-02-01T07:00:00.000Z", { status: "succeeded" });
      expect(await runs.claim(owner, later)).toBe(true);
      expect(await runs.claim(owner, earlier)).toBe(true);
      newest.set(owner, later);
    }
    // An owner whose run was stored before pointers existed, and one that never ran.
    const legacy = exportRun("ex_latest_legacy", "2026-01-15T07:00:00.000Z", {});
    await container.items.create({
      ...legacy,
      ownerId: "ex_latest_legacy",
      type: "export-run",
      sortKey: `${legacy.scheduledFor}|${legacy.id}`,
    });

    queries = 0;
    bulks = 0;
    const first = await runs.latest([...owners, "ex_latest_legacy", "ex_latest_never"]);
    expect(first).toEqual(new Map([...newest, ["ex_latest_legacy", legacy]]));
    expect(queries, "one look-up each for the owners without a pointer").toBe(2);

    queries = 0;
    bulks = 0;
    const again = await runs.latest([...owners, "ex_latest_legacy", "ex_latest_never"]);
    expect(again).toEqual(first);
    expect({ queries, bulks }).toEqual({ queries: 0, bulks: 2 });

    // A newer claim moves the pointer on; an older one does not move it back.
    const newer = exportRun("ex_latest_0", "2026-02-03T07:00:00.000Z", {});
    await runs.claim("ex_latest_0", newer);
    await runs.claim("ex_latest_0", exportRun("ex_latest_0", "2026-01-01T07:00:00.000Z", {}));
    expect((await runs.latest(["ex_latest_0"])).get("ex_latest_0")).toEqual(newer);
  });
});
