import { describe, expect, it } from "vitest";
import { LocalSftpLogins } from "../../adapters/sftp/local-sftp-logins";
import type { FeedRepository } from "../../ports/feed-repository";
import { systemClock } from "../../ports/clock";
import { ListFeeds } from "./list-feeds";

describe("ListFeeds", () => {
  it("refuses a cursor, which this list never issues, before reading the store", async () => {
    const untouched = new Proxy({} as FeedRepository, {
      get: () => {
        throw new Error("the store was read");
      },
    });
    const list = new ListFeeds({ repository: untouched, logins: new LocalSftpLogins({ host: "localhost", port: 2222 }), clock: systemClock });
    await expect(list.execute({ cursor: "eyJhZnRlciI6ImZkXzEifQ", pageSize: 10 })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      details: [{ field: "cursor", message: "not a cursor from this list" }],
    });
  });
});
