import type { StoredExport } from "../domain/export";
import type { StoredExportDestination } from "../domain/export-destination";
import { MAX_EXPORT_ATTEMPTS, type ExportRunRepository, type StoredExportRun } from "../domain/export-run";
import { defaultPeriod, periodWindow } from "../domain/export-schedule";
import type { WebhookSecretCipher } from "../domain/webhook-secret-cipher";
import type { Logger } from "../logging";
import type { Clock } from "../ports/clock";
import type { MessageBus } from "../ports/message-bus";
import type { DateWindow, ExportDataSets, ExportDestination, WriteExport } from "./export/contract";
import type { ExportRepository, ExportRunMessage } from "./exports";

/** A destination with its secrets opened, for the one attempt that uploads. */
export type OpenedDestination = StoredExportDestination;

/** Builds the adapter that uploads to a destination (SFTP or blob). */
export type OpenDestination = (destination: OpenedDestination) => ExportDestination;

export interface RunExportDeps {
  exports: ExportRepository;
  runs: ExportRunRepository;
  dataSets: ExportDataSets;
  writeExport: WriteExport;
  openDestination: OpenDestination;
  cipher: WebhookSecretCipher;
  bus: MessageBus;
  clock: Clock;
  log: Logger;
  /** How long an attempt holds its run without renewing (it renews at a third of it while alive). */
  leaseSeconds: number;
  /** How long a failed attempt waits before the next. */
  retryDelaySeconds: number;
}

const PERIOD_TYPES = new Set(["transactions", "prices"]);

/** The dates a run selects: transactions and prices only, by the export's `period` (default by frequency). */
export function runWindow(exp: Pick<StoredExport, "dataType" | "filters" | "schedule">, scheduledFor: Date): DateWindow | undefined {
  if (!PERIOD_TYPES.has(exp.dataType)) return undefined;
  return periodWindow(exp.filters.period ?? defaultPeriod(exp.schedule.frequency), scheduledFor, exp.schedule.timezone);
}

/** `text` with every secret replaced, so an SDK message that quotes one never reaches a run or a log. */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[secret]");
  return out.length > 500 ? `${out.slice(0, 497)}...` : out;
}

/**
 * Performs one attempt of an export run (an `exports` message): the data set streamed through the
 * writer to the destination under the run's file name, overwriting a file an earlier attempt left.
 * The attempt first takes the run (a conditional write: running, and not held by a live attempt), so
 * a duplicated message never writes twice at once; it renews its lease while it works. A failed
 * attempt is retried after a delay, up to three attempts; an attempt that dies is handed on by the
 * queue's redelivery or by the sweep once its lease ends.
 */
export class RunExport {
  constructor(private readonly deps: RunExportDeps) {}

  async run(message: ExportRunMessage): Promise<void> {
    const { clock, log } = this.deps;
    const run = await this.take(message);
    if (run === undefined) return;
    const exp = await this.deps.exports.get(run.exportId);
    if (exp === undefined) {
      await this.finish(run, { status: "failed", error: "the export was deleted" });
      return;
    }
    let secrets: string[] = [];
    const renew = setInterval(() => void this.renew(run).catch(() => undefined), (this.deps.leaseSeconds * 1000) / 3);
    try {
      const destination = this.open(exp);
      if (destination.type === "sftp") secrets = [destination.password, destination.privateKey].filter((s): s is string => s !== undefined);
      const dataSet = this.deps.dataSets.open({ dataType: exp.dataType, filters: exp.filters, ...windowOf(exp, run) });
      const file = this.deps.writeExport(exp.format, { exportId: exp.id, dataType: exp.dataType, generatedAt: clock.now().toISOString() }, dataSet);
      const { bytes } = await this.deps.openDestination(destination).upload(run.fileName, file.stream);
      await this.finish(run, { status: "succeeded", rows: file.rows(), bytes });
      log.info("export run succeeded", { exportId: exp.id, runId: run.id, fileName: run.fileName, rows: file.rows(), bytes, attempt: run.attempts });
    } catch (error) {
      const reason = scrub(error instanceof Error ? error.message : String(error), secrets);
      log.warn("export run attempt failed", { exportId: exp.id, runId: run.id, attempt: run.attempts, error: reason });
      await this.failAttempt(run, reason);
    } finally {
      clearInterval(renew);
    }
  }

  /** Takes the run for this attempt: undefined when it is finished, or held by an attempt whose lease is live. */
  private async take(message: ExportRunMessage): Promise<StoredExportRun | undefined> {
    const now = this.deps.clock.now();
    let taken: StoredExportRun | undefined;
    await this.deps.runs.update(message.exportId, message.runId, (current) => {
      taken = undefined;
      if (current.status !== "running") return undefined;
      // attempts 0: the claim's lease, which only guards against a lost message; the first attempt takes it.
      if (current.attempts > 0 && current.leaseUntil > now.toISOString()) return undefined;
      if (current.attempts >= MAX_EXPORT_ATTEMPTS) return undefined;
      taken = { ...current, attempts: current.attempts + 1, leaseUntil: this.leaseFrom(now) };
      return taken;
    });
    return taken;
  }

  private async renew(run: StoredExportRun): Promise<void> {
    await this.deps.runs.update(run.exportId, run.id, (current) =>
      current.status === "running" && current.attempts === run.attempts ? { ...current, leaseUntil: this.leaseFrom(this.deps.clock.now()) } : undefined,
    );
  }

  private async finish(run: StoredExportRun, outcome: { status: "succeeded" | "failed"; rows?: number; bytes?: number; error?: string }): Promise<void> {
    const completedAt = this.deps.clock.now().toISOString();
    await this.deps.runs.update(run.exportId, run.id, (current) => {
      if (current.status !== "running" || current.attempts !== run.attempts) return undefined;
      const { error: _previous, ...rest } = current;
      return { ...rest, status: outcome.status, rows: outcome.rows ?? 0, bytes: outcome.bytes ?? 0, ...(outcome.error !== undefined ? { error: outcome.error } : {}), completedAt, leaseUntil: completedAt };
    });
  }

  /** The last attempt fails the run; an earlier one records why and schedules the next attempt. */
  private async failAttempt(run: StoredExportRun, reason: string): Promise<void> {
    if (run.attempts >= MAX_EXPORT_ATTEMPTS) {
      await this.finish(run, { status: "failed", error: reason });
      return;
    }
    const { clock, retryDelaySeconds } = this.deps;
    const retryAt = new Date(clock.now().getTime() + retryDelaySeconds * 1000).toISOString();
    const updated = await this.deps.runs.update(run.exportId, run.id, (current) =>
      current.status === "running" && current.attempts === run.attempts ? { ...current, error: reason, leaseUntil: retryAt } : undefined,
    );
    if (updated?.leaseUntil !== retryAt) return;
    await this.deps.bus.send("exports", [{ body: { exportId: run.exportId, runId: run.id } satisfies ExportRunMessage, delaySeconds: retryDelaySeconds }]);
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

function windowOf(exp: StoredExport, run: StoredExportRun): { window?: DateWindow } {
  const window = runWindow(exp, new Date(run.scheduledFor));
  return window === undefined ? {} : { window };
}
