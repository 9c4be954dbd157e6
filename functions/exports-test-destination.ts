import { z } from "zod";
import { services } from "../shared/composition";
import { connectionTestSchema, testExportDestinationRequestSchema } from "../shared/domain/connection-test";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const exportsTestDestination = endpoint({
  name: "exports-test-destination",
  method: "POST",
  route: "api/v1/settings/exports/test-destination",
  summary:
    "Test an export's destination before saving it: named steps (SFTP: resolve, connect, handshake with the host key's fingerprint to approve, authenticate, write and remove a probe file; blob: resolve, list, write and delete a probe blob), each with its outcome; nothing is saved or left behind",
  tag: "System settings",
  scope: "api.admin",
  body: testExportDestinationRequestSchema,
  responses: [
    {
      status: 200,
      description: "Each step's outcome (ok is false when one failed: the answer is still 200)",
      schema: z.object({ data: connectionTestSchema }),
    },
  ],
  errors: [404, 422],
  async handle({ body }) {
    return { status: 200, body: { data: await services().exports.testExportDestination().execute(body) } };
  },
});

registerEndpoint(exportsTestDestination);
