import { eventIdOf, type EventEnvelope } from "../../domain/events";
import type { Job } from "../../domain/job";

/** refresh_job.completed or refresh_job.failed for a finished job. */
export function jobEvent(job: Job): EventEnvelope {
  const event = job.status === "failed" ? "refresh_job.failed" : "refresh_job.completed";
  return {
    id: eventIdOf(event, job.id),
    event,
    timestamp: job.completedAt ?? job.startedAt,
    data: {
      jobId: job.id,
      source: job.source,
      dataType: job.dataType,
      ...(job.fileName !== null ? { fileName: job.fileName } : {}),
      counts: job.counts,
      startedAt: job.startedAt,
      completedAt: job.completedAt,
      ...(job.status === "failed" ? { error: job.errors[0]?.message ?? "failed" } : {}),
    },
  };
}
