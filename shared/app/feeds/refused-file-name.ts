import type { Job } from "../../domain/job";
import { inboundNameProblem, printableName } from "../../domain/inbound-name";
import type { StoredFileInfo } from "../../ports/file-store";
import { hashOf, originOf } from "./ingest-file-parts";

/**
 * The failed job of an inbound file whose name no store of ours can hold (a noncharacter such as
 * U+FFFE, NUL, invalid UTF-8: domain/inbound-name.ts), or undefined when its name is fine. Such a file
 * is not read: the job says why (quoting the name with those characters escaped) and the file leaves
 * the inbox for quarantine, so neither it nor a listing of the inbox stops anything else. One job per
 * version of the file (name and time): a repeated event finds it.
 */
export function refusedFileName(
  name: string,
  feed: { id: string; dataType: Job["dataType"] },
  info: StoredFileInfo,
  unlabelledSource: "sftp" | "blob",
  now: string,
): Job | undefined {
  const inboxName = name.slice(feed.id.length + 1);
  const problem = inboundNameProblem(inboxName);
  if (problem === undefined) return undefined;
  const { source, fileName } = originOf(inboxName, info.metadata, unlabelledSource);
  return {
    id: `job_${hashOf(feed.id, "unholdable-name", name, info.lastModified.toISOString()).slice(0, 24)}`,
    source,
    dataType: feed.dataType,
    feedId: feed.id,
    fileName: printableName(fileName),
    status: "failed",
    counts: { received: 0, accepted: 0, rejected: 0, removed: 0 },
    errors: [
      {
        field: "file",
        message: `the file name ${problem}, which no store can hold: the file was not read and is quarantined; send it again under a name without it`,
      },
    ],
    startedAt: now,
    completedAt: now,
    leaseUntil: null,
  };
}
