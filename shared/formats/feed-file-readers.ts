import type { Readable } from "node:stream";
import type { FeedDefinition } from "../domain/feed";
import { FileFormatError } from "../domain/source-record";
import type { FileReaders } from "../ports/file-readers";
import { boundedChunks } from "./bounded-chunks";
import { readCsv } from "./csv-reader";
import { readFix } from "./fix-reader";
import { readJson } from "./json-reader";
import { readXlsx } from "./xlsx-reader";
import { readXml } from "./xml-reader";

/** The file readers of every format a feed may have, handed the file in bounded pieces. */
export const feedFileReaders: FileReaders = {
  records(
    feed: Pick<FeedDefinition, "format" | "options">,
    file: Readable,
    onHeader?: (columns: readonly string[]) => void,
  ) {
    const o = feed.options;
    const input = boundedChunks(file);
    switch (feed.format) {
      case "csv":
        return readCsv(input, {
          ...(o.delimiter !== undefined ? { delimiter: o.delimiter } : {}),
          ...(o.headerRow !== undefined ? { headerRow: o.headerRow } : {}),
          ...(o.encoding !== undefined ? { encoding: o.encoding } : {}),
          ...(onHeader !== undefined ? { onHeader } : {}),
        });
      case "xlsx":
        return readXlsx(input, {
          ...(o.sheet !== undefined ? { sheet: o.sheet } : {}),
          ...(o.headerRow !== undefined ? { headerRow: o.headerRow } : {}),
          ...(onHeader !== undefined ? { onHeader } : {}),
        });
      case "xml":
        if (o.recordPath === undefined)
          throw new FileFormatError("the feed has no options.recordPath, which xml files need");
        return readXml(input, {
          recordPath: o.recordPath,
          ...(o.encoding !== undefined ? { encoding: o.encoding } : {}),
        });
      case "json":
        return readJson(input, o.recordPath !== undefined ? { recordPath: o.recordPath } : {});
      case "fix":
        return readFix(input, o.msgTypes !== undefined ? { msgTypes: o.msgTypes } : {});
    }
  },
};
