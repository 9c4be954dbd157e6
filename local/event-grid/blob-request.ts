import type { IncomingHttpHeaders } from "node:http";
import { BLOB_CREATED, BLOB_DELETED } from "./storage-event";

/**
 * The User-Agent prefix of the local SFTP drop's storage client. Azure's SFTP endpoint is part of the
 * storage service and names its operations itself (SftpCreate, SftpCommit, SftpRemove); locally the
 * SFTP drop is a client of the emulator, so it says which requests are its own.
 */
export const SFTP_ENDPOINT_USER_AGENT = "ids-local-sftp-endpoint";

/** A blob request that raises an event when it succeeds: which blob, which event, which API. */
export interface EventfulRequest {
  account: string;
  container: string;
  blob: string;
  eventType: typeof BLOB_CREATED | typeof BLOB_DELETED;
  api: string;
}

/** The operations of the SFTP endpoint, by the Blob REST operation the local drop uses for each. */
const SFTP_APIS: Record<string, string> = {
  PutBlob: "SftpCreate",
  PutBlockList: "SftpCommit",
  DeleteBlob: "SftpRemove",
};

/**
 * The event a blob service request raises once it succeeds, as Azure Storage raises them: BlobCreated
 * for Put Blob, Put Block List and Copy Blob (a blob is created or replaced whole), BlobDeleted for
 * Delete Blob; nothing for anything else (Put Block, Set Blob Metadata or Properties, tiers, tags,
 * leases, snapshots, reads, container operations). `path` is the request's path-style URL path
 * (`/<account>/<container>/<blob>`, the blob name percent-encoded), `query` its query string.
 */
export function eventfulRequest(
  method: string,
  path: string,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
): EventfulRequest | undefined {
  const m = /^\/([^/]+)\/([^/]+)\/(.+)$/s.exec(path);
  if (m === null || query.has("restype")) return undefined;
  let blob: string;
  try {
    blob = decodeURIComponent(m[3] ?? "");
  } catch {
    return undefined; // not a name the emulator can hold either: it refuses the request
  }
  const comp = query.get("comp");
  let api: string | undefined;
  if (method === "PUT" && comp === null) {
    if (headers["x-ms-copy-source"] !== undefined)
      // Put Blob From URL names a blob type; Copy Blob (asynchronous or synchronous) does not.
      api = headers["x-ms-blob-type"] !== undefined ? "PutBlobFromUrl" : "CopyBlob";
    else if (headers["x-ms-blob-type"] !== undefined) api = "PutBlob";
  } else if (method === "PUT" && comp === "blocklist") api = "PutBlockList";
  else if (method === "DELETE" && comp === null) api = "DeleteBlob";
  if (api === undefined) return undefined;
  if ((headers["user-agent"] ?? "").startsWith(SFTP_ENDPOINT_USER_AGENT)) api = SFTP_APIS[api] ?? api;
  const eventType = api === "DeleteBlob" || api === "SftpRemove" ? BLOB_DELETED : BLOB_CREATED;
  return { account: m[1] ?? "", container: m[2] ?? "", blob, eventType, api };
}
