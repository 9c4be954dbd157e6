import type { Readable } from "node:stream";
import { AppError, notFound } from "../../domain/errors";
import type { Job } from "../../domain/job";
import type { FileStore } from "../../ports/file-store";
import type { JobRepository } from "../../ports/investment-repositories";
import { sha256Of } from "./file-hashing";

/** A feed job's file as the service keeps it, when it is still there with the content the job read. */
export interface JobFile {
  job: Job & { file: NonNullable<Job["file"]> };
  size: number;
  open: () => Promise<Readable | undefined>;
}

/**
 * Finds the file a feed job read in quarantine (or archive). A later file of the same name moves to
 * the same place and replaces it: the content's SHA-256 tells the job's own bytes from another's, so
 * a replaced file is "gone", never someone else's bytes under this job.
 */
export async function findJobFile(deps: { jobs: JobRepository; files: FileStore }, jobId: string): Promise<JobFile> {
  const job = await deps.jobs.get(jobId);
  if (job === undefined) throw notFound(`Job '${jobId}'`);
  const file = job.file;
  const gone = (): Error =>
    new AppError("NOT_FOUND", `The service no longer keeps the file of job '${jobId}' (or never kept one)`);
  if (file === undefined) throw gone();
  const info = await deps.files.info(file.container, file.name);
  const stream = info === undefined ? undefined : await deps.files.read(file.container, file.name);
  if (info === undefined || stream === undefined || (await sha256Of(stream)) !== file.sha256) throw gone();
  return { job: { ...job, file }, size: info.size, open: () => deps.files.read(file.container, file.name) };
}

/**
 * Opens a job's file for the download: its name, its size and a stream of its bytes, read from the
 * store as the response is sent (a quarantined file may be hundreds of megabytes; it is never held
 * whole in memory).
 */
export class GetJobFile {
  constructor(private readonly deps: { jobs: JobRepository; files: FileStore }) {}

  async execute(jobId: string): Promise<{ fileName: string; size: number; stream: Readable }> {
    const found = await findJobFile(this.deps, jobId);
    const stream = await found.open();
    if (stream === undefined) throw notFound(`The file of job '${jobId}'`);
    const fileName = found.job.fileName ?? found.job.file.name.slice(found.job.file.name.lastIndexOf("/") + 1);
    return { fileName, size: found.size, stream };
  }
}
