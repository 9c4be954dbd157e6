import { describe, expect, it } from "vitest";
import { eventFilterSchema, inboundEventFilter, matchesFilter } from "./event-filter";
import { BLOB_CREATED, BLOB_DELETED, blobSubject } from "./storage-event";

const event = (eventType: string, container: string, blob: string, api: string) => ({
  eventType,
  subject: blobSubject(container, blob),
  data: { api },
});

describe("the file-drop trigger's Event Grid filter (infra/hooks/inbound-event-filter.json)", () => {
  const filter = inboundEventFilter();

  it("passes a whole file written under inbound/, by any API that writes one whole", () => {
    for (const api of ["PutBlob", "PutBlockList", "CopyBlob", "FlushWithClose", "SftpCommit", "sftpcommit"])
      expect(matchesFilter(filter, event(BLOB_CREATED, "inbound", "fd_1/a.csv", api)), api).toBe(true);
  });

  it("passes nothing else: SFTP's and Data Lake's empty file at open, other APIs, deletes, other containers", () => {
    for (const api of ["SftpCreate", "CreateFile", "PutBlobFromUrl", "PutBlock"])
      expect(matchesFilter(filter, event(BLOB_CREATED, "inbound", "fd_1/a.csv", api)), api).toBe(false);
    expect(matchesFilter(filter, event(BLOB_DELETED, "inbound", "fd_1/a.csv", "DeleteBlob"))).toBe(false);
    for (const container of ["archive", "inbound2", "quarantine"])
      expect(matchesFilter(filter, event(BLOB_CREATED, container, "fd_1/a.csv", "PutBlob")), container).toBe(false);
    expect(matchesFilter(filter, { eventType: BLOB_CREATED, subject: blobSubject("inbound", "x"), data: {} })).toBe(
      false,
    );
  });

  it("refuses a filter feature the local runtime does not apply, rather than ignoring it", () => {
    expect(eventFilterSchema.safeParse({ ...filter, enableAdvancedFilteringOnArrays: true }).success).toBe(false);
    expect(
      eventFilterSchema.safeParse({
        ...filter,
        advancedFilters: [{ operatorType: "StringContains", key: "data.api", values: ["Put"] }],
      }).success,
    ).toBe(false);
  });
});
