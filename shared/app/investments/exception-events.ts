import { eventIdOf, type EventEnvelope } from "../../domain/events";
import type { DataQualityException } from "../../domain/data-quality-exception";
import type { StoredException } from "../../ports/investment-repositories";

/** The API's fields of a stored exception. */
export const exceptionView = (e: StoredException): DataQualityException => ({
  id: e.id,
  type: e.type,
  severity: e.severity,
  message: e.message,
  entity: e.entity,
  jobId: e.jobId,
  status: e.status,
  createdAt: e.createdAt,
  resolvedAt: e.resolvedAt,
  resolvedBy: e.resolvedBy,
  resolution: e.resolution,
});

/**
 * The event announcing an exception's last change: `exception.created` when it was opened (its id
 * from the exception, and from the reopening time for a reopened one), `exception.resolved` when it
 * was resolved. The same change always gives the same event id, so announcing it twice appends once.
 */
export function exceptionEvent(e: StoredException): EventEnvelope {
  if (e.status === "resolved") {
    const at = e.resolvedAt ?? e.createdAt;
    return {
      id: eventIdOf("exception.resolved", `${e.id}|${at}`),
      event: "exception.resolved",
      timestamp: at,
      data: { exceptionId: e.id, type: e.type, resolvedBy: e.resolvedBy ?? "", resolution: e.resolution },
    };
  }
  const openedAt = e.openedAt ?? e.createdAt;
  return {
    id: eventIdOf("exception.created", openedAt === e.createdAt ? e.id : `${e.id}|${openedAt}`),
    event: "exception.created",
    timestamp: openedAt,
    data: { exceptionId: e.id, type: e.type, severity: e.severity, message: e.message, entity: e.entity },
  };
}
