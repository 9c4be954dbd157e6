import { z } from "zod";
import { services } from "../shared/composition";
import { connectionTestSchema, testBlobSourceRequestSchema } from "../shared/domain/connection-test";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const blobSourcesTest = endpoint({
  name: "blob-sources-test",
  method: "POST",
  route: "api/v1/settings/blob-sources/test",
  summary:
    "Test a blob source's container before saving it: named steps (resolve the account, list under the prefix with the service's identity), each with its outcome; nothing is saved or written",
  tag: "System settings",
  scope: "api.admin",
  body: testBlobSourceRequestSchema,
  responses: [
    {
      status: 200,
      description: "Each step's outcome (ok is false when one failed: the answer is still 200)",
      schema: z.object({ data: connectionTestSchema }),
    },
  ],
  errors: [422],
  async handle({ body }) {
    return { status: 200, body: { data: await services().blobSources.testBlobSource().execute(body) } };
  },
});

registerEndpoint(blobSourcesTest);
