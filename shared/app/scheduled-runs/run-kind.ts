import type { OutgoingMessage, QueueName } from "../../ports/message-bus";
import type { ScheduledRun } from "../../ports/scheduled-runs";

/** Attempts that take a run before it is given up: each failed, or lost with its instance. */
export const MAX_RUN_ATTEMPTS = 3;

/** What the scheduled-runs component knows of one kind of run (an export's, a blob source's). */
export interface RunKind<R extends ScheduledRun> {
  /** The queue whose function performs a run. */
  readonly queue: QueueName;
  /** The field naming the owner in the run's message and in log lines (`exportId`, `blobSourceId`). */
  readonly ownerField: string;
  /** The owner's id (the run's partition). */
  ownerOf(run: R): string;
  /** "an export", "a blob source": for log messages. */
  readonly label: string;
  /** How long an attempt holds a run without renewing it. */
  readonly leaseSeconds: number;
  /** How long a claimed run waits for an instance to take it before it is sent again (its message was lost). */
  readonly unsentAfterSeconds: number;
  /** The `error` of a run given up because its last attempt did not finish (the instance was lost). */
  readonly abandonedError: string;
}

/** The fields a run is claimed with: when, no attempt yet, and until when the claim waits for one. */
export interface RunClaim {
  startedAt: string;
  attempts: 0;
  leaseUntil: string;
}

/** The run's message on its queue: `{ <ownerField>: owner, runId }`, what the queue function parses. */
export function runMessage<R extends ScheduledRun>(kind: RunKind<R>, run: R, delaySeconds?: number): OutgoingMessage {
  return {
    body: { [kind.ownerField]: kind.ownerOf(run), runId: run.id },
    ...(delaySeconds !== undefined ? { delaySeconds } : {}),
  };
}
