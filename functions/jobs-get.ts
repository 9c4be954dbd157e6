import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { jobSchema } from "../shared/domain/job";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const jobsGet = endpoint({
  name: "jobs-get",
  method: "GET",
  route: "api/v1/jobs/{jobId}",
  summary: "One refresh job",
  tag: "Jobs",
  scope: "api.read",
  params: z.object({ jobId: idParam(200) }),
  responses: [{ status: 200, description: "The job", schema: z.object({ data: jobSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().investments.getJob().execute(params.jobId) } };
  },
});

registerEndpoint(jobsGet);
