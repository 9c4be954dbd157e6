export const BLOB_CREATED = "Microsoft.Storage.BlobCreated";
export const BLOB_DELETED = "Microsoft.Storage.BlobDeleted";

/**
 * A blob storage event as Event Grid delivers it (its Event Grid schema; the data fields the local
 * runtime fills). `data.api` names the operation that raised it: PutBlob, PutBlockList, CopyBlob,
 * DeleteBlob, or SftpCreate, SftpCommit, SftpRemove for the storage account's SFTP endpoint.
 * (No zod here: the front door loads this module before the emulator is up, and every module counts.)
 */
export interface StorageEvent {
  id: string;
  topic: string;
  subject: string;
  eventType: string;
  eventTime: string;
  data: {
    api: string;
    clientRequestId?: string | undefined;
    requestId?: string | undefined;
    eTag?: string | undefined;
    contentType?: string | undefined;
    contentLength?: number | undefined;
    blobType?: string | undefined;
    url: string;
    sequencer?: string | undefined;
    [key: string]: unknown;
  };
  dataVersion: string;
  metadataVersion: string;
}

/** `/blobServices/default/containers/<container>/blobs/<name>`: the subject of a blob's events. */
export const blobSubject = (container: string, blob: string): string =>
  `/blobServices/default/containers/${container}/blobs/${blob}`;

/** The container and blob name of an event's subject; undefined for a subject that names no blob. */
export function blobOfSubject(subject: string): { container: string; blob: string } | undefined {
  const m = /^\/blobServices\/default\/containers\/([^/]+)\/blobs\/(.+)$/s.exec(subject);
  return m === null ? undefined : { container: m[1] ?? "", blob: m[2] ?? "" };
}

/** A storage queue message (base64, as the Functions host reads them) holding an event. */
export const eventMessage = (event: StorageEvent): string =>
  Buffer.from(JSON.stringify(event), "utf8").toString("base64");
