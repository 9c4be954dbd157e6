/** A feed over SFTP, as the file benchmarks drive it: created through the API, a file dropped, its job awaited. */
import { createReadStream } from "node:fs";
import SftpClient from "ssh2-sftp-client";
import type { BenchRuntime } from "./harness";
import { post } from "./fixtures";

export interface Feed {
  id: string;
  username: string;
  password: string;
}

/** Creates a feed (POST /api/v1/settings/feeds) and returns its id and SFTP login. */
export async function createFeed(runtime: BenchRuntime, token: string, definition: object): Promise<Feed> {
  const reply = await post(runtime.baseUrl, token, "/api/v1/settings/feeds", definition);
  if (reply.status !== 201)
    throw new Error(`feed create failed (${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
  const data = (reply.body as { data: { id: string; sftp: { username: string; password: string } } }).data;
  return { id: data.id, username: data.sftp.username, password: data.sftp.password };
}

export interface Job {
  status: string;
  completedAt?: string | null;
  fileName?: string;
  counts?: { received: number; accepted: number; rejected: number };
  errors?: unknown[];
}

/**
 * Uploads `file` over SFTP into the feed's inbox and waits until its job is no longer running:
 * seconds from the upload's start (`seconds`), and from the upload's end, when the file is committed
 * to `inbound` and ingestion can begin, to the job's completion (`afterUploadSeconds`).
 */
export async function dropAndWait(
  runtime: BenchRuntime,
  token: string,
  feed: Feed,
  file: string,
  fileName: string,
): Promise<{ seconds: number; uploadSeconds: number; afterUploadSeconds: number; job: Job }> {
  const sftp = new SftpClient();
  await sftp.connect({
    host: "127.0.0.1",
    port: runtime.sftpPort,
    username: feed.username,
    password: feed.password,
    retries: 0,
    readyTimeout: 10_000,
  });
  const started = performance.now();
  try {
    await sftp.put(createReadStream(file), `/${fileName}`);
  } finally {
    await sftp.end().catch(() => undefined);
  }
  const uploadSeconds = (performance.now() - started) / 1000;
  const uploaded = Date.now();
  const deadline = Date.now() + 60 * 60_000;
  for (;;) {
    const response = await fetch(`${runtime.baseUrl}/api/v1/jobs?feedId=${feed.id}&pageSize=100`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { data?: Job[] };
    const job = (body.data ?? []).find((j) => j.fileName === fileName && j.status !== "running");
    if (job !== undefined) {
      const seconds = (performance.now() - started) / 1000;
      // The job's own completion time when it has one (the poll adds up to 100 ms).
      const completed = typeof job.completedAt === "string" ? Date.parse(job.completedAt) : Date.now();
      return {
        seconds,
        uploadSeconds,
        afterUploadSeconds: Math.min(seconds - uploadSeconds, (completed - uploaded) / 1000),
        job,
      };
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the job of ${fileName}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
