import { randomUUID } from "node:crypto";
import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { jobSchema } from "../shared/domain/job";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const jobsReprocess = endpoint({
  name: "jobs-reprocess",
  method: "POST",
  route: "api/v1/jobs/{jobId}/reprocess",
  summary:
    "Process a failed feed job's quarantined file again, with the feed's mapping as it is now: a new job (reprocessOf names this one), never a duplicate",
  tag: "Jobs",
  scope: "api.write",
  params: z.object({ jobId: idParam(200) }),
  docHeaders: z.object({
    "Idempotency-Key": z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,255}$/)
      .optional()
      .meta({ description: "The same key within 24 h answers the same new job instead of starting another" }),
  }),
  responses: [
    {
      status: 202,
      description: "The new job, running; ingestion reads the file and finishes it (GET /api/v1/jobs/{jobId})",
      schema: z.object({ data: jobSchema }),
      headers: { Location: "The new job" },
    },
  ],
  errors: [404, 409, 422],
  async handle({ params, principal, request }) {
    const svc = services();
    const key = request.headers.get("idempotency-key");
    const result = await svc.access
      .idempotency()
      .run(`${principal?.clientId ?? ""}|reprocess|${params.jobId}`, key, "", async () => {
        // With a key, the same key finds the same job even after a crash lost the stored answer.
        const job = await svc.feeds.reprocessJob().execute(params.jobId, key ?? randomUUID());
        return { status: 202, body: { data: job } };
      });
    const id = (result.body as { data?: { id?: string } }).data?.id;
    return {
      status: result.status,
      body: result.body,
      headers: {
        ...(id !== undefined ? { Location: `/api/v1/jobs/${id}` } : {}),
        ...(result.replayed ? { "Idempotent-Replayed": "true" } : {}),
      },
    };
  },
});

registerEndpoint(jobsReprocess);
