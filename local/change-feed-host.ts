/**
 * Runs `app.cosmosDB` (change-feed) functions locally, as the Functions host's change-feed processor
 * does in Azure: each trigger reads its container's feed (the stand-in emulates it, local/cosmos/
 * change-feed.ts) with the SDK's own iterator, hands the function a batch of documents, and only when
 * the function succeeded stores the continuation in the lease container. A crash (`kill -9`) between
 * the two delivers that batch again after the restart: at least once, in feed order, never skipped
 * while a retry policy says to try again.
 */
import {
  ChangeFeedStartFrom,
  StatusCodes,
  type ChangeFeedIteratorResponse,
  type ChangeFeedPullModelIterator,
  type Container,
  type Database,
} from "@azure/cosmos";
import type { Logger } from "../shared/logging";
import { invocationContext, type LoadedFunction } from "./functions-host";

interface LeaseDoc {
  id: string;
  continuation: string;
  function: string;
  updatedAt: string;
}

/** A retry policy as the Functions host receives it (durations as `{ seconds, nanos }` or milliseconds). */
interface RetryOptions {
  strategy?: string;
  maxRetryCount?: number;
  delayInterval?: unknown;
  minimumInterval?: unknown;
  maximumInterval?: unknown;
}

function milliseconds(duration: unknown, fallback: number): number {
  if (typeof duration === "number") return duration;
  if (typeof duration === "object" && duration !== null) {
    const { seconds, nanos } = duration as { seconds?: unknown; nanos?: unknown };
    return Number(seconds ?? 0) * 1000 + Math.floor(Number(nanos ?? 0) / 1e6);
  }
  return fallback;
}

/** The delay before retry number `attempt` (1-based), or undefined when the policy gives up (or there is none). */
export function retryDelay(options: unknown, attempt: number): number | undefined {
  if (typeof options !== "object" || options === null) return undefined;
  const retry = options as RetryOptions;
  const max = retry.maxRetryCount ?? 0;
  if (max >= 0 && attempt > max) return undefined;
  if (retry.strategy === "fixedDelay") return milliseconds(retry.delayInterval, 1000);
  const minimum = milliseconds(retry.minimumInterval, 1000);
  return Math.min(milliseconds(retry.maximumInterval, 60_000), minimum * 2 ** Math.min(attempt - 1, 20));
}

/** `%NAME%` in a binding is the app setting NAME, as the Functions host resolves it. */
const text = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function setting(value: unknown): string {
  return String(value).replace(/%([A-Za-z0-9_]+)%/g, (_, name: string) => {
    const resolved = process.env[name];
    if (resolved === undefined || resolved === "") throw new Error(`binding setting %${name}% is not set`);
    return resolved;
  });
}

export class ChangeFeedHost {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly functions: LoadedFunction[],
    private readonly database: (name: string) => Database,
    private readonly log: Logger,
    /** Overrides each trigger's `feedPollDelay` (ms between reads of a drained feed). */
    private readonly pollMs?: number,
  ) {}

  start(): void {
    this.running = true;
    for (const fn of this.functions.filter((f) => f.trigger.type === "cosmosDBTrigger"))
      this.loops.push(this.follow(fn));
  }

  /** Stops reading; a batch in flight finishes (or, if it keeps failing, is left for the next start). */
  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.wakers) wake();
    await Promise.all(this.loops);
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  private warn(fn: LoadedFunction, message: string, error?: unknown): void {
    this.log.warn(message, { function: fn.name, ...(error !== undefined ? { error: text(error) } : {}) });
  }

  private async follow(fn: LoadedFunction): Promise<void> {
    const trigger = fn.trigger;
    const database = this.database(setting(trigger.databaseName));
    const container = database.container(setting(trigger.containerName));
    const leases = database.container(
      typeof trigger.leaseContainerName === "string" ? trigger.leaseContainerName : "leases",
    );
    const leaseId = `${typeof trigger.leaseContainerPrefix === "string" ? trigger.leaseContainerPrefix : ""}${setting(trigger.containerName)}`;
    const pollMs = this.pollMs ?? (typeof trigger.feedPollDelay === "number" ? trigger.feedPollDelay : 5000);
    const maxItemCount = typeof trigger.maxItemsPerInvocation === "number" ? trigger.maxItemsPerInvocation : 100;
    let iterator: ChangeFeedPullModelIterator<unknown> | undefined;
    let next: Promise<ChangeFeedIteratorResponse<unknown[]>> | undefined;
    // The checkpoints, written in order while the next batch is delivered: one lost to a crash only
    // means a batch delivered again.
    let checkpoint: Promise<void> = Promise.resolve();
    while (this.running) {
      try {
        if (iterator === undefined) await checkpoint;
        iterator ??= await this.open(container, leases, leaseId, trigger.startFromBeginning === true, maxItemCount);
        const page = await (next ?? iterator.readNext());
        next = undefined;
        if (page.statusCode === StatusCodes.NotModified || page.result.length === 0) {
          await this.idle(pollMs);
          continue;
        }
        // The next page is read while this one is delivered (each page carries its own continuation,
        // and checkpoints stay in order): a backlog drains at the pace of the slower of the two.
        next = iterator.readNext();
        next.catch(() => undefined);
        if (!(await this.deliver(fn, page.result))) break; // stopping: the batch comes again at the next start
        const lease: LeaseDoc = {
          id: leaseId,
          continuation: page.continuationToken,
          function: fn.name,
          updatedAt: new Date().toISOString(),
        };
        checkpoint = checkpoint.then(() =>
          leases.items.upsert(lease).then(
            () => undefined,
            (error: unknown) =>
              this.warn(fn, "change feed checkpoint not written (the batch comes again after a restart)", error),
          ),
        );
      } catch (error) {
        // The stand-in restarting, a lease write failing: read again from the last stored checkpoint.
        this.warn(fn, "change feed read failed", error);
        iterator = undefined;
        next = undefined;
        if (this.running) await this.idle(1000);
      }
    }
    await checkpoint;
  }

  private async open(
    container: Container,
    leases: Container,
    leaseId: string,
    fromBeginning: boolean,
    maxItemCount: number,
  ): Promise<ChangeFeedPullModelIterator<unknown>> {
    let continuation: string | undefined;
    try {
      const { resource } = await leases.item(leaseId, leaseId).read<LeaseDoc>();
      continuation = resource?.continuation;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 404) throw error;
    }
    const changeFeedStartFrom =
      continuation !== undefined
        ? ChangeFeedStartFrom.Continuation(continuation)
        : fromBeginning
          ? ChangeFeedStartFrom.Beginning()
          : ChangeFeedStartFrom.Now();
    return container.items.getChangeFeedIterator({ changeFeedStartFrom, maxItemCount });
  }

  /** Runs the function on the batch, retrying as its policy says. False only when stopping before it succeeded. */
  private async deliver(fn: LoadedFunction, documents: unknown[]): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await fn.handler(documents, invocationContext(fn.name, this.log.sink));
        return true;
      } catch (error) {
        const delay = retryDelay(fn.retryOptions, attempt);
        if (delay === undefined) {
          // As in Azure: without (or past) a retry policy the batch is given up and the feed moves on.
          this.log.error("change-feed function failed; batch skipped", {
            function: fn.name,
            documents: documents.length,
            error: text(error),
          });
          return true;
        }
        this.warn(fn, `change-feed function failed; retrying in ${delay} ms`, error);
        if (!this.running) return false;
        await this.idle(delay);
        if (!this.running) return false;
      }
    }
  }
}
