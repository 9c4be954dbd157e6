import type { StoredExport } from "../../domain/export";
import type { StoredExportDestination } from "../../domain/export-destination";
import { renderedNameProblem } from "../../domain/export-file-name";
import type { StoredExportRun } from "../../domain/export-run";
import { exportTargetKey, type ExportTargetHolder, type ExportTargetLocks } from "../../domain/export-target";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { Logger } from "../../logging";
import type { Clock } from "../../ports/clock";
import type {
  ExportDataSets,
  ExportDestination,
  ExportRepository,
  UploadAttempt,
  WriteExport,
} from "../../ports/exports";
import { destinationProblems, type DestinationRules } from "./destination-rules";
import type { ExportRunLease } from "./export-run-lease";
import type { ExportRunMessage } from "./export-runs";
import { fileNameOf, windowOf } from "./run-snapshot";

/** A destination with its secrets opened, for the one attempt that uploads. */
export type OpenedDestination = StoredExportDestination;

/** Builds the adapter that uploads to a destination (SFTP or blob). */
export type OpenDestination = (destination: OpenedDestination) => ExportDestination;

export interface RunExportDeps {
  exports: ExportRepository;
  /** The run's record as this attempt takes, holds and leaves it. */
  lease: ExportRunLease;
  targets: ExportTargetLocks;
  dataSets: ExportDataSets;
  writeExport: WriteExport;
  openDestination: OpenDestination;
  destinations: DestinationRules;
  cipher: WebhookSecretCipher;
  clock: Clock;
  log: Logger;
  /** How long an attempt holds its run and its target without renewing (it renews at a third of it while alive). */
  leaseSeconds: number;
}

/** `text` with every secret replaced, so an SDK message that quotes one never reaches a run or a log. */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[secret]");
  return out.length > 500 ? `${out.slice(0, 497)}...` : out;
}

/** Why an attempt stopped without a failure of its own: its export was deleted (the run is cancelled), or another attempt took its run over. */
class AttemptStopped extends Error {
  constructor(
    readonly cancelled: boolean,
    message: string,
  ) {
    super(message);
  }
}

const CANCELLED = "cancelled: the export was deleted during the run; no file was delivered";

/**
 * Performs one attempt of an export run (an `exports` message). The attempt takes the run (a
 * conditional write: running, and not held by a live attempt), so a duplicated message never writes
 * twice at once; reads the export once, and works from that one snapshot: data set, format, file
 * name (rendered again and recorded on the run) and destination; checks the destination again; takes
 * the target file (one writer per file across runs and exports; a busy target makes the run wait for
 * the retry delay without spending an attempt); streams the data set through the writer to the
 * destination; and before the file becomes visible confirms that the export still exists and the run
 * and target are still its own. A failed attempt is retried after a delay, up to three attempts; an
 * attempt that dies is handed on by the queue's redelivery or by the sweep once its lease ends.
 */
export class RunExport {
  private readonly lease: ExportRunLease;

  constructor(private readonly deps: RunExportDeps) {
    this.lease = deps.lease;
  }

  async execute(message: ExportRunMessage): Promise<void> {
    const { log } = this.deps;
    const taken = await this.lease.take(message);
    if (taken === undefined) return;
    const exp = await this.deps.exports.get(taken.exportId);
    if (exp === undefined) {
      await this.lease.finish(taken, {
        status: "failed",
        error: "cancelled: the export was deleted; no file was delivered",
      });
      log.warn("export run cancelled: the export was deleted", { exportId: taken.exportId, runId: taken.id });
      return;
    }
    const fileName = fileNameOf(exp, taken);
    const run = await this.lease.name(taken, fileName);
    if (run === undefined) return;
    const refused = this.refusal(exp, fileName);
    if (refused !== undefined) {
      log.warn("export run attempt failed", { exportId: exp.id, runId: run.id, attempt: run.attempts, error: refused });
      await this.lease.failAttempt(run, refused);
      return;
    }
    const target = exportTargetKey(exp.destination, fileName);
    const holder: ExportTargetHolder = { exportId: exp.id, runId: run.id, attempt: run.attempts };
    const now = this.deps.clock.now();
    if (!(await this.deps.targets.acquire(target, holder, now.toISOString(), this.leaseFrom(now)))) {
      log.info("export run waits: another run is writing the same file", { exportId: exp.id, runId: run.id, fileName });
      await this.lease.giveBack(run);
      return;
    }
    try {
      await this.upload(exp, run, target, holder);
    } finally {
      await this.deps.targets.release(target, holder).catch((error: unknown) =>
        log.warn("export target not released; its lease will end", {
          exportId: exp.id,
          runId: run.id,
          error: String(error),
        }),
      );
    }
  }

  /** The upload itself, with the run and target held: succeeded, failed (retried), or stopped. */
  private async upload(
    exp: StoredExport,
    run: StoredExportRun,
    target: string,
    holder: ExportTargetHolder,
  ): Promise<void> {
    const { clock, log } = this.deps;
    let secrets: string[] = [];
    let stopped: AttemptStopped | undefined;
    let file: ReturnType<WriteExport> | undefined;
    const stop = (why: AttemptStopped): void => {
      stopped ??= why;
      file?.stream.destroy(why);
    };
    // While it works: the leases renewed, and a deleted export or a lost run stops the upload at once.
    const renew = setInterval(
      () =>
        void this.keep(exp, run, target, holder).then(
          (why) => why !== undefined && stop(why),
          () => undefined,
        ),
      (this.deps.leaseSeconds * 1000) / 3,
    );
    const attempt: UploadAttempt = {
      id: `${run.id.slice(3, 15)}-${run.attempts}`,
      confirm: async () => {
        const why = (await this.keep(exp, run, target, holder)) ?? stopped;
        if (why !== undefined) {
          stop(why);
          throw why;
        }
      },
    };
    try {
      const destination = this.open(exp);
      if (destination.type === "sftp")
        secrets = [destination.password, destination.privateKey].filter((s): s is string => s !== undefined);
      const dataSet = this.deps.dataSets.open({ dataType: exp.dataType, filters: exp.filters, ...windowOf(exp, run) });
      file = this.deps.writeExport(
        exp.format,
        { exportId: exp.id, dataType: exp.dataType, generatedAt: clock.now().toISOString() },
        dataSet,
      );
      const { bytes } = await this.deps.openDestination(destination).upload(run.fileName, file.stream, attempt);
      await this.lease.finish(run, { status: "succeeded", rows: file.rows(), bytes });
      log.info("export run succeeded", {
        exportId: exp.id,
        runId: run.id,
        fileName: run.fileName,
        rows: file.rows(),
        bytes,
        attempt: run.attempts,
      });
    } catch (error) {
      const why = stopped ?? (error instanceof AttemptStopped ? error : undefined);
      if (why?.cancelled === true) {
        await this.lease.finish(run, { status: "failed", error: why.message });
        log.warn("export run cancelled: the export was deleted", {
          exportId: exp.id,
          runId: run.id,
          attempt: run.attempts,
        });
      } else if (why !== undefined) {
        log.warn("export run attempt stopped", {
          exportId: exp.id,
          runId: run.id,
          attempt: run.attempts,
          reason: why.message,
        });
      } else {
        const reason = scrub(error instanceof Error ? error.message : String(error), secrets);
        log.warn("export run attempt failed", {
          exportId: exp.id,
          runId: run.id,
          attempt: run.attempts,
          error: reason,
        });
        await this.lease.failAttempt(run, reason);
      }
    } finally {
      clearInterval(renew);
    }
  }

  /** Renews the run and the target; says why the attempt must stop when the export is gone or either was taken over. */
  private async keep(
    exp: StoredExport,
    run: StoredExportRun,
    target: string,
    holder: ExportTargetHolder,
  ): Promise<AttemptStopped | undefined> {
    if ((await this.deps.exports.get(exp.id)) === undefined) return new AttemptStopped(true, CANCELLED);
    if (!(await this.lease.renew(run))) return new AttemptStopped(false, "another attempt took the run over");
    if (!(await this.deps.targets.renew(target, holder, this.leaseFrom(this.deps.clock.now()))))
      return new AttemptStopped(false, "another run took the target file over");
    return undefined;
  }

  /** Why this snapshot may not be written: a destination the rules refuse (a definition saved before a rule), a file name that renders unsafe. */
  private refusal(exp: StoredExport, fileName: string): string | undefined {
    const { details } = destinationProblems(exp.destination, this.deps.destinations);
    const first = details[0];
    if (first !== undefined)
      return `the destination may not be used: ${first.field} ${first.message}; nothing was written`;
    const unsafe = renderedNameProblem(fileName);
    return unsafe === undefined
      ? undefined
      : `the file name renders as "${fileName}", which ${unsafe}; nothing was written`;
  }

  private open(exp: StoredExport): OpenedDestination {
    const d = exp.destination;
    if (d.type === "blob") return d;
    const { cipher } = this.deps;
    return {
      ...d,
      ...(d.password !== undefined ? { password: cipher.open(d.password, exp.id) } : {}),
      ...(d.privateKey !== undefined ? { privateKey: cipher.open(d.privateKey, exp.id) } : {}),
    };
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + this.deps.leaseSeconds * 1000).toISOString();
  }
}
