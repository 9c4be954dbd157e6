import type { Readable } from "node:stream";
import iconv from "iconv-lite";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { FileFormatError, type SourceRecord } from "../domain/source-record";
import type { RecordReader } from "./record-reader";

export type XmlEncoding = "utf-8" | "windows-1252" | "iso-8859-1";

/** What a feed says about its XML files (validated by the feed schema before it gets here). */
export interface XmlOptions {
  /**
   * Dotted path of element names from the root to the repeating record, without namespace
   * prefixes: `Document.SctiesBalCtdyRpt.BalForAcct`.
   */
  recordPath: string;
  /** Default `utf-8` (a BOM is skipped). */
  encoding?: XmlEncoding;
  /** Elements nested deeper than this, anywhere in the document, make it unreadable. Default 64. */
  maxDepth?: number;
  /** A record whose names, attributes and text pass this many characters is refused. Default 1 MiB. */
  maxRecordChars?: number;
}

export const DEFAULT_XML_MAX_DEPTH = 64;
export const DEFAULT_XML_MAX_RECORD_CHARS = 1 << 20;
/** Text or markup this long with no element starting or ending: saxes would hold all of it. */
const MAX_CHARS_BETWEEN_TAGS = 4 << 20;

/** An element being built: its attributes, children by name (an array once a name repeats) and text. */
interface Building {
  fields: Record<string, unknown>;
  text: string;
}

/**
 * Streams the records of an XML document with saxes, a SAX parser: memory holds one record and the
 * path to it, never the document. Each element on `recordPath` under the root is one record, read as
 * a plain object: child elements by local name (a name that repeats becomes an array, in document
 * order), attributes as `@name`, text of an element without attributes or children as a string
 * (trimmed), and the text of one that has them as `#text`. Namespace prefixes are stripped from
 * element and attribute names (`ns2:Qty` is `Qty`) and `xmlns` declarations are dropped, so a
 * mapping reads the same whichever prefix a provider chose. A DOCTYPE is refused outright: no
 * entity is ever declared, expanded or fetched (billion laughs, XXE). Malformed XML, a document
 * deeper than `maxDepth` and a record over `maxRecordChars` are FileFormatErrors naming the record.
 */
export const readXml: RecordReader<XmlOptions> = (input, options) => xmlRecords(input, options);

async function* xmlRecords(input: Readable, options: XmlOptions): AsyncGenerator<SourceRecord> {
  const recordPath = options.recordPath.split(".").filter((name) => name !== "");
  if (recordPath.length === 0) throw new FileFormatError("The feed's recordPath is empty");
  const maxDepth = options.maxDepth ?? DEFAULT_XML_MAX_DEPTH;
  const maxRecordChars = options.maxRecordChars ?? DEFAULT_XML_MAX_RECORD_CHARS;

  const parser = new SaxesParser({ xmlns: false, position: true });
  const ready: SourceRecord[] = [];
  const path: string[] = [];
  /** The open elements of the record being read, outermost first; empty outside a record. */
  const open: Building[] = [];
  let records = 0;
  let recordChars = 0;
  let charsSinceEvent = 0;

  const where = () => (open.length > 0 ? records : records + 1);
  const fail = (message: string): never => {
    throw new FileFormatError(`${message} (line ${parser.line}, column ${parser.column})`, where());
  };
  const count = (chars: number) => {
    charsSinceEvent = 0;
    if (open.length === 0) return;
    recordChars += chars;
    if (recordChars > maxRecordChars) fail(`Record ${records} is longer than ${maxRecordChars} characters`);
  };
  const atRecordPath = () => path.length === recordPath.length && path.every((name, i) => name === recordPath[i]);

  parser.on("error", (error) => fail(`Malformed XML: ${error.message.replace(/^[^:]*:\d+:\d+: /, "")}`));
  parser.on("doctype", () => fail("A DOCTYPE is not allowed (entities are never expanded)"));
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const name = localName(tag.name);
    path.push(name);
    if (path.length > maxDepth) fail(`The document nests elements deeper than ${maxDepth}`);
    if (path.length === 1 && name !== recordPath[0]) fail(`The document's root is ${name}, not ${recordPath[0] ?? ""}`);
    if (open.length === 0 && !atRecordPath()) {
      charsSinceEvent = 0;
      return;
    }
    if (open.length === 0) {
      records += 1;
      recordChars = 0;
    }
    const fields: Record<string, unknown> = {};
    let chars = tag.name.length;
    for (const [attribute, value] of Object.entries(tag.attributes)) {
      chars += attribute.length + value.length;
      if (attribute === "xmlns" || attribute.startsWith("xmlns:")) continue;
      fields[`@${localName(attribute)}`] = value;
    }
    count(chars);
    open.push({ fields, text: "" });
  });
  const onText = (text: string) => {
    count(text.length);
    const current = open[open.length - 1];
    if (current !== undefined) current.text += text;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", (tag) => {
    const name = path.pop() ?? localName(tag.name);
    const element = open.pop();
    count(0);
    if (element === undefined) return;
    const value = finish(element);
    const parent = open[open.length - 1];
    if (parent === undefined) {
      ready.push({ row: records, values: typeof value === "string" ? { "#text": value } : value });
    } else {
      const existing = parent.fields[name];
      if (existing === undefined) parent.fields[name] = value;
      // A field is only ever an array when its name repeated: values themselves are strings or objects.
      else if (Array.isArray(existing)) existing.push(value);
      else parent.fields[name] = [existing, value];
    }
  });

  try {
    for await (const text of decode(input, options.encoding ?? "utf-8")) {
      charsSinceEvent += text.length;
      parser.write(text);
      if (charsSinceEvent > MAX_CHARS_BETWEEN_TAGS)
        fail(`More than ${MAX_CHARS_BETWEEN_TAGS} characters without a tag`);
      yield* ready.splice(0);
    }
    parser.close();
    yield* ready.splice(0);
  } catch (error) {
    if (error instanceof FileFormatError) throw error;
    throw new FileFormatError(
      `Not a readable XML file: ${error instanceof Error ? error.message : String(error)}`,
      where(),
    );
  } finally {
    input.destroy();
  }
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
}

function finish(element: Building): Record<string, unknown> | string {
  const keys = Object.keys(element.fields);
  const text = element.text.trim();
  if (keys.length === 0) return text;
  if (text !== "") element.fields["#text"] = text;
  return element.fields;
}

async function* decode(input: Readable, encoding: XmlEncoding): AsyncGenerator<string> {
  if (encoding === "utf-8") {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for await (const chunk of input as AsyncIterable<Buffer>) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
    return;
  }
  const decoder = iconv.getDecoder(encoding);
  for await (const chunk of input as AsyncIterable<Buffer>) yield decoder.write(chunk);
  yield decoder.end() ?? "";
}
