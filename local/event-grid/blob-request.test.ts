import { describe, expect, it } from "vitest";
import { eventfulRequest, SFTP_ENDPOINT_USER_AGENT } from "./blob-request";

const classify = (method: string, url: string, headers: Record<string, string> = {}) => {
  const u = new URL(url, "http://127.0.0.1:10000");
  const op = eventfulRequest(method, u.pathname, u.searchParams, headers);
  return op === undefined ? undefined : [op.eventType.replace("Microsoft.Storage.", ""), op.api, op.container, op.blob];
};

describe("which blob requests raise a storage event, as Azure Storage raises them", () => {
  it("Put Blob, Put Block List and Copy Blob create; Delete Blob deletes", () => {
    const blob = { "x-ms-blob-type": "BlockBlob" };
    expect(classify("PUT", "/devstoreaccount1/inbound/fd_1/a%20b.csv", blob)).toEqual([
      "BlobCreated",
      "PutBlob",
      "inbound",
      "fd_1/a b.csv",
    ]);
    expect(classify("PUT", "/devstoreaccount1/inbound/fd_1/a.csv?comp=blocklist")?.[1]).toBe("PutBlockList");
    expect(classify("PUT", "/devstoreaccount1/inbound/a.csv", { "x-ms-copy-source": "http://x/y" })?.[1]).toBe(
      "CopyBlob",
    );
    expect(classify("DELETE", "/devstoreaccount1/inbound/a.csv")?.slice(0, 2)).toEqual(["BlobDeleted", "DeleteBlob"]);
  });

  it("nothing for a staged block, metadata, properties, tags, tiers, leases, snapshots, reads or container operations", () => {
    for (const [method, url] of [
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=block&blockid=AA%3D%3D"],
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=metadata"],
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=properties"],
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=tags"],
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=tier"],
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=lease"],
      ["PUT", "/devstoreaccount1/inbound/a.csv?comp=snapshot"],
      ["GET", "/devstoreaccount1/inbound/a.csv"],
      ["HEAD", "/devstoreaccount1/inbound/a.csv"],
      ["PUT", "/devstoreaccount1/inbound?restype=container"],
      ["DELETE", "/devstoreaccount1/inbound?restype=container"],
    ] as const)
      expect(classify(method, url, { "x-ms-blob-type": "BlockBlob" }), `${method} ${url}`).toBeUndefined();
  });

  it("the local SFTP drop's requests are the SFTP endpoint's operations: SftpCreate at open, SftpCommit at close, SftpRemove", () => {
    const sftp = { "user-agent": `${SFTP_ENDPOINT_USER_AGENT} azsdk-js-storageblob/12.29.1` };
    expect(
      classify("PUT", "/devstoreaccount1/inbound/fd_1/a.csv", { ...sftp, "x-ms-blob-type": "BlockBlob" })?.[1],
    ).toBe("SftpCreate");
    expect(classify("PUT", "/devstoreaccount1/inbound/fd_1/a.csv?comp=blocklist", sftp)?.[1]).toBe("SftpCommit");
    expect(classify("DELETE", "/devstoreaccount1/inbound/fd_1/a.csv", sftp)?.slice(0, 2)).toEqual([
      "BlobDeleted",
      "SftpRemove",
    ]);
  });
});
