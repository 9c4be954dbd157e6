import {
  dataQualityExceptionIdOf,
  followedTypes,
  SYSTEM_RESOLVER,
  type DataQualityCandidate,
  type DataQualityException,
} from "../../domain/data-quality-exception";
import { AppError, notFound } from "../../domain/errors";
import type { Clock } from "../../ports/clock";
import type { DataQualityExceptionRepository, SnapshotRef, StoredException } from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";
import { exceptionEvent, exceptionView } from "./exception-events";

/** What one stored valuation found: the exceptions of its portfolio-date follow it. */
export interface ValuationFindings {
  ref: SnapshotRef;
  /** The import that marked the portfolio-date stale (named by the exceptions it opens). */
  jobId: string | null;
  candidates: readonly DataQualityCandidate[];
  /** Still the stored valuation of its portfolio-date: only the newest resolves what it no longer finds. */
  current: boolean;
  /** Why an exception of the portfolio-date that this valuation no longer finds is resolved. */
  resolution(exception: DataQualityException): string;
}

const followed = new Set(followedTypes);
const refKey = (r: SnapshotRef): string => `${r.portfolioId}|${r.date}`;

/**
 * Data-quality exceptions: opened once per condition and announced by `exception.created`; those a
 * valuation finds follow their cause (resolved by the service when a revaluation no longer finds
 * it, reopened when it comes back); every resolution is announced by `exception.resolved`. Each
 * change is written with a flag saying its event is still to be appended, and the flag cleared once
 * it is: a crash in between leaves the flag, and the next look at the exception announces it.
 */
export class DataQualityExceptions {
  constructor(
    private readonly repository: DataQualityExceptionRepository,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
  ) {}

  /** Opens an exception for each condition not seen before; returns how many were new. */
  async open(candidates: readonly DataQualityCandidate[], jobId: string | null): Promise<number> {
    return this.openAll(
      candidates.map((candidate) => ({ candidate, jobId })),
      new Map(),
    );
  }

  /**
   * After valuations are stored: opens what they found, and resolves each open MISSING_PRICE,
   * STALE_PRICE or MISSING_FX_RATE exception of their portfolio-dates that they no longer find.
   * One query for all of them, then bulk writes: a portfolio with thousands of missing prices costs
   * a few store calls, not thousands.
   */
  async followValuations(findings: readonly ValuationFindings[]): Promise<void> {
    if (findings.length === 0) return;
    const found = await this.repository.foundIn(findings.map((f) => f.ref));
    const known = new Map(found.map((e) => [e.id, e]));
    await this.openAll(
      findings.flatMap((f) => f.candidates.map((candidate) => ({ candidate, jobId: f.jobId }))),
      known,
    );
    const stillFound = new Set(findings.flatMap((f) => f.candidates.map((c) => dataQualityExceptionIdOf(c.key))));
    const byRef = new Map(findings.map((f) => [refKey(f.ref), f]));
    const resolvedAt = this.clock.now().toISOString();
    const resolutions: StoredException[] = [];
    for (const e of found) {
      const finding = e.foundIn === undefined ? undefined : byRef.get(e.foundIn);
      if (e.status !== "open" || !followed.has(e.type) || stillFound.has(e.id) || finding?.current !== true) continue;
      resolutions.push({
        ...e,
        status: "resolved",
        resolvedAt,
        resolvedBy: SYSTEM_RESOLVER,
        resolution: finding.resolution(exceptionView(e)),
        unannounced: "resolved",
      });
    }
    const etags = await this.repository.replaceMany(resolutions);
    const resolved = resolutions.flatMap((e, i) => {
      const etag = etags[i];
      return etag === undefined ? [] : [{ ...e, etag }];
    });
    // Resolved earlier by a run that stopped before announcing it (and not found again since).
    const unannounced = found.filter(
      (e) => e.status === "resolved" && e.unannounced === "resolved" && !stillFound.has(e.id),
    );
    await this.announce([...resolved, ...unannounced]);
  }

  /** A person resolves an exception: `by` is their API client id. */
  async resolve(id: string, by: string, resolution: string | null): Promise<DataQualityException> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = (await this.repository.getMany([id])).get(id);
      if (current === undefined) throw notFound(`Exception '${id}'`);
      if (current.status === "resolved") {
        // A resolve that stored its change and failed before announcing it: this one finishes it.
        if (current.unannounced === "resolved") {
          await this.announce([current]);
          return exceptionView(current);
        }
        throw new AppError("CONFLICT", "The exception is already resolved");
      }
      const next: StoredException = {
        ...current,
        status: "resolved",
        resolvedAt: this.clock.now().toISOString(),
        resolvedBy: by,
        resolution,
        unannounced: "resolved",
      };
      const [etag] = await this.repository.replaceMany([next]);
      if (etag === undefined) continue;
      await this.announce([{ ...next, etag }]);
      return exceptionView(next);
    }
    throw new AppError("CONFLICT", `Exception '${id}' keeps changing; try again`, { retryable: true });
  }

  /**
   * Opens each condition: created where new; where it exists, announced if its opening still is,
   * or reopened if the service had resolved it and a valuation finds it again. `known`: exceptions
   * already read (not read again). Returns how many were opened.
   */
  private async openAll(
    entries: readonly { candidate: DataQualityCandidate; jobId: string | null }[],
    known: ReadonlyMap<string, StoredException>,
  ): Promise<number> {
    const now = this.clock.now().toISOString();
    const byId = new Map<string, StoredException>();
    for (const { candidate: c, jobId } of entries) {
      const id = dataQualityExceptionIdOf(c.key);
      if (byId.has(id)) continue;
      byId.set(id, {
        id,
        type: c.type,
        severity: c.severity,
        message: c.message,
        entity: c.entity,
        jobId,
        status: "open",
        createdAt: now,
        resolvedAt: null,
        resolvedBy: null,
        resolution: null,
        ...(c.foundIn !== undefined ? { foundIn: refKey(c.foundIn) } : {}),
        openedAt: now,
        unannounced: "created",
      });
    }
    const fresh = [...byId.values()].filter((e) => !known.has(e.id));
    const etags = await this.repository.createMany(fresh);
    const created = fresh.flatMap((e, i) => {
      const etag = etags[i];
      return etag === undefined ? [] : [{ ...e, etag }];
    });
    const existed = fresh.filter((_, i) => etags[i] === undefined).map((e) => e.id);
    const stored = new Map(known);
    for (const [id, e] of await this.repository.getMany(existed)) stored.set(id, e);

    const announce: StoredException[] = [...created];
    const createdIds = new Set(created.map((e) => e.id));
    const reopen: StoredException[] = [];
    for (const [id, wanted] of byId) {
      const e = createdIds.has(id) ? undefined : stored.get(id);
      if (e === undefined) continue;
      if (e.status === "open" && e.unannounced === "created") announce.push(e);
      // A cause the service saw go has come back; a person's resolution stands.
      else if (e.status === "resolved" && e.resolvedBy === SYSTEM_RESOLVER && wanted.foundIn !== undefined)
        reopen.push({ ...wanted, createdAt: e.createdAt, etag: e.etag ?? "" });
    }
    const reopened = await this.repository.replaceMany(reopen);
    reopen.forEach((e, i) => {
      const etag = reopened[i];
      if (etag !== undefined) announce.push({ ...e, etag });
    });
    await this.announce(announce);
    return created.length + reopened.filter((e) => e !== undefined).length;
  }

  /** Appends each exception's pending event, then clears its flag (unless it changed meanwhile: its next look does). */
  private async announce(exceptions: readonly StoredException[]): Promise<void> {
    if (exceptions.length === 0) return;
    await this.outbox.append(exceptions.map(exceptionEvent));
    await this.repository.replaceMany(exceptions.map(({ unannounced: _u, ...e }) => e));
  }
}
