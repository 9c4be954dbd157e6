import { mapConcurrent } from "../../domain/concurrency";
import { eventIdOf, type EventEnvelope } from "../../domain/events";
import {
  dataQualityExceptionIdOf,
  type DataQualityException,
  type DataQualityCandidate,
} from "../../domain/data-quality-exception";
import type { Clock } from "../../ports/clock";
import type { DataQualityExceptionRepository } from "../../ports/investment-repositories";
import type { Outbox } from "../../ports/outbox";

/** Data-quality exceptions: opened once per condition, each announced by `exception.created`. */
export class DataQualityExceptions {
  constructor(
    private readonly repository: DataQualityExceptionRepository,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
  ) {}

  /** Opens an exception for each condition not seen before; returns how many were new. */
  async open(candidates: readonly DataQualityCandidate[], jobId: string | null): Promise<number> {
    const unique = [...new Map(candidates.map((c) => [c.key, c])).values()];
    const outcomes = await mapConcurrent(unique, 16, async (candidate) => {
      const now = this.clock.now().toISOString();
      const exception: DataQualityException = {
        id: dataQualityExceptionIdOf(candidate.key),
        type: candidate.type,
        severity: candidate.severity,
        message: candidate.message,
        entity: candidate.entity,
        jobId,
        status: "open",
        createdAt: now,
        resolvedAt: null,
      };
      const created = await this.repository.createIfNew(exception);
      // Announced even when the exception already existed: a retry after a crash between the two
      // writes then still announces it, and the event's id keeps it to one announcement.
      const stored = created ? exception : await this.repository.get(exception.id);
      return { created, stored };
    });
    const events: EventEnvelope[] = outcomes.flatMap(({ stored }) =>
      stored === undefined
        ? []
        : [
            {
              id: eventIdOf("exception.created", stored.id),
              event: "exception.created" as const,
              timestamp: stored.createdAt,
              data: {
                exceptionId: stored.id,
                type: stored.type,
                severity: stored.severity,
                message: stored.message,
                entity: stored.entity,
              },
            },
          ],
    );
    const opened = outcomes.filter((o) => o.created).length;
    await this.outbox.append(events);
    return opened;
  }
}
