/**
 * JSON export: `{ "exportId", "dataType", "generatedAt", "data": [...], "count" }`, streamed. The
 * records are written as the API answers them (nested, arrays kept). `count` comes after `data`
 * because it is known only once the last record is written; JSON readers do not care about order.
 */
import { Readable } from "node:stream";
import type { DataSet, ExportFile, ExportHeader } from "../../ports/exports";

/** Characters gathered before a chunk is handed on. */
const CHUNK_CHARS = 256 * 1024;

export function writeJson(header: ExportHeader, dataSet: DataSet): ExportFile {
  let rows = 0;
  async function* chunks(): AsyncGenerator<string> {
    let chunk = `{"exportId":${JSON.stringify(header.exportId)},"dataType":${JSON.stringify(header.dataType)},"generatedAt":${JSON.stringify(header.generatedAt)},"data":[`;
    let written = 0;
    for await (const record of dataSet.records) {
      chunk += (written === 0 ? "\n" : ",\n") + JSON.stringify(record);
      written++;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        rows = written;
        chunk = "";
      }
    }
    rows = written;
    yield `${chunk}${written === 0 ? "" : "\n"}],"count":${written}}\n`;
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), rows: () => rows };
}
