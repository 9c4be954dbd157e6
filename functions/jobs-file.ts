import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

/** A file name as a Content-Disposition header carries it: ASCII fallback plus the exact name (RFC 6266, RFC 5987). */
const disposition = (fileName: string): string => {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};

export const jobsFile = endpoint({
  name: "jobs-file",
  method: "GET",
  route: "api/v1/jobs/{jobId}/file",
  summary: "The file a feed job read, byte for byte, as the service keeps it (quarantined or archived)",
  tag: "Jobs",
  scope: "api.read",
  params: z.object({ jobId: idParam(200) }),
  responses: [
    {
      status: 200,
      description: "The file's bytes, as delivered, streamed from storage as they are read",
      contentType: "application/octet-stream",
      headers: {
        "Content-Disposition": "attachment, with the file's name",
        "Content-Length": "the file's size in bytes",
      },
    },
  ],
  errors: [404],
  async handle({ params }) {
    const { fileName, size, stream } = await services().feeds.getJobFile().execute(params.jobId);
    return {
      status: 200,
      stream,
      headers: {
        "Content-Type": "application/octet-stream",
        "Content-Length": String(size),
        "Content-Disposition": disposition(fileName),
        "Cache-Control": "no-store",
      },
    };
  },
});

registerEndpoint(jobsFile);
