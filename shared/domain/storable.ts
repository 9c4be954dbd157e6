/*
 * Values every store of ours can hold. Cosmos DB keeps any JSON, but the replica's PostgreSQL refuses
 * NUL in text ("invalid byte sequence for encoding UTF8: 0x00"), a string with an unpaired surrogate is
 * not Unicode at all (no UTF-8 encoder writes it; the storage SDKs throw URIError on it in a path), and
 * noncharacters (U+FDD0–U+FDEF, U+xFFFE and U+xFFFF of every plane) are not for interchange. So no
 * string the service accepts, from a request or from a provider's file, holds one: refused at the door
 * with the field named, never found later by a projection that cannot write it.
 */

/**
 * The code units an unstorable character starts with: NUL, any surrogate (an astral noncharacter is a
 * pair, U+1FFFE = D83F DFFE), a BMP noncharacter. A string without any (nearly every string; V8 answers
 * for a Latin-1 string without scanning) is storable; where one is, the code point is looked at.
 */
const SUSPECT = /[\0\uD800-\uDFFF\uFDD0-\uFDEF\uFFFE\uFFFF]/g;

const isNoncharacter = (cp: number): boolean => (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;

/** Each unstorable code point of `text` with its UTF-16 index, in order, until `visit` answers false. */
function eachUnstorable(text: string, visit: (index: number, cp: number, length: number) => boolean): void {
  SUSPECT.lastIndex = 0;
  for (let m = SUSPECT.exec(text); m !== null; m = SUSPECT.exec(text)) {
    const i = m.index;
    const unit = text.charCodeAt(i);
    let cp = unit;
    let length = 1;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        length = 2;
        SUSPECT.lastIndex = i + 2;
        if (!isNoncharacter(cp)) continue;
      }
    }
    if (!visit(i, cp, length)) return;
  }
}

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** Why `text` cannot be stored (its first offending character, named), or undefined when it can. */
export function unstorableIn(text: string): string | undefined {
  let why: string | undefined;
  eachUnstorable(text, (index, cp) => {
    const at = `at character ${index + 1}`;
    if (cp === 0) why = `contains U+0000 (NUL) ${at}, which no store can hold`;
    else if (cp >= 0xd800 && cp <= 0xdfff)
      why = `contains an unpaired surrogate (${hex(cp)}) ${at}, which is not Unicode text`;
    else why = `contains the Unicode noncharacter ${hex(cp)} ${at}, which is not for interchange`;
    return false;
  });
  return why;
}

/** `text` with every unstorable character written as `\u{XXXX}`: for messages that quote a provider's file. */
export function printable(text: string): string {
  let out = "";
  let from = 0;
  eachUnstorable(text, (index, cp, length) => {
    out += `${text.slice(from, index)}\\u{${cp.toString(16)}}`;
    from = index + length;
    return true;
  });
  return from === 0 ? text : out + text.slice(from);
}

const BACKSLASH_U = Buffer.from("\\u");
/** UTF-8 of U+FDC0–U+FDFF (the noncharacters U+FDD0–U+FDEF among them), and the endings of U+xFFFE and U+xFFFF. */
const NONCHARACTER_BYTES = [Buffer.from([0xef, 0xb7]), Buffer.from([0xbf, 0xbe]), Buffer.from([0xbf, 0xbf])];
const ESCAPED = /^(?:0000|[dD][89a-fA-F]|[fF][dD][dDeE]|[fF]{3}[eEfF])/;

/**
 * Whether a JSON document, as its UTF-8 bytes, may hold an unstorable string: false means it certainly
 * holds none, so the common request skips the walk over its values. Decoded with replacement (as a
 * request's text is), bytes spell no lone surrogate and JSON holds no raw NUL, so only a `\u` escape
 * of NUL, a surrogate or a BMP noncharacter, or a noncharacter's own bytes can: a few byte searches
 * (memmem), not a scan of the decoded text.
 */
export function mayHoldUnstorableUtf8(json: Buffer): boolean {
  if (NONCHARACTER_BYTES.some((needle) => json.includes(needle))) return true;
  for (let i = json.indexOf(BACKSLASH_U); i >= 0; i = json.indexOf(BACKSLASH_U, i + 2)) {
    if (ESCAPED.test(json.toString("latin1", i + 2, i + 6))) return true;
  }
  return false;
}

export interface UnstorableValue {
  /** Where: `prices[12].source`, `mapping.isin.map` (for a key), `body` for the document itself. */
  field: string;
  message: string;
}

/**
 * Every unstorable string of a parsed JSON value (keys included), up to `limit`, with its path written
 * as validation details write it (`prices[12].isin`).
 */
export function findUnstorable(value: unknown, limit = 100): UnstorableValue[] {
  const found: UnstorableValue[] = [];
  const visit = (v: unknown, path: string): void => {
    if (found.length >= limit) return;
    if (typeof v === "string") {
      const why = unstorableIn(v);
      if (why !== undefined) found.push({ field: path === "" ? "body" : path, message: why });
      return;
    }
    if (typeof v !== "object" || v === null) return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${path}[${i}]`));
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      const at = path === "" ? printable(key) : `${path}.${printable(key)}`;
      const why = unstorableIn(key);
      if (why !== undefined && found.length < limit) found.push({ field: at, message: `the key ${why}` });
      visit(item, at);
    }
  };
  visit(value, "");
  return found;
}

/** The most decimal places a price or an FX rate carries (the replica's numeric columns hold 12). */
export const MAX_DECIMALS = 12;

/**
 * The decimal places of a number as written in its shortest form (what JSON and a file carry): 0.1 → 1,
 * 1.5e-29 → 30, 5e-324 → 324, 123.45 → 2. Integers have none.
 */
export function decimalPlaces(n: number): number {
  if (Number.isInteger(n) || !Number.isFinite(n)) return 0;
  const s = String(n);
  const e = s.indexOf("e");
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exponent = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const fraction = dot < 0 ? 0 : mantissa.length - dot - 1;
  return Math.max(0, fraction - exponent);
}

const SCALE = 10 ** MAX_DECIMALS;

/**
 * Whether `n` carries at most 12 decimal places. Per price and rate of a file, so the common case
 * is arithmetic: when n × 10¹² is a whole number below 2⁵³ that divides back to n exactly, n is the
 * double nearest to a number of at most 12 places, which is its shortest form. Otherwise the places
 * are counted from the shortest form.
 */
export function withinMaxDecimals(n: number): boolean {
  const scaled = n * SCALE;
  if (Number.isInteger(scaled) && Math.abs(scaled) < 2 ** 53 && scaled / SCALE === n) return true;
  return decimalPlaces(n) <= MAX_DECIMALS;
}

/** The first and last date any store of ours holds (PostgreSQL and SQL Server have no year 0). */
export const MIN_DATE = "0001-01-01";
export const MAX_DATE = "9999-12-31";
