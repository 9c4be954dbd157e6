/*
 * Values every store of ours can hold. Cosmos DB keeps any JSON, but the replica's PostgreSQL refuses
 * NUL in text ("invalid byte sequence for encoding UTF8: 0x00"), a string with an unpaired surrogate is
 * not Unicode at all (no UTF-8 encoder writes it; the storage SDKs throw URIError on it in a path), and
 * noncharacters (U+FDD0–U+FDEF, U+xFFFE and U+xFFFF of every plane) are not for interchange. So no
 * string the service accepts, from a request or from a provider's file, holds one: refused at the door
 * with the field named, never found later by a projection that cannot write it.
 */

/** NUL, an unpaired surrogate (in `u` mode a lone surrogate is a code point of category Cs), or a noncharacter. */
const UNSTORABLE = /[\0\p{Cs}\p{Noncharacter_Code_Point}]/u;
const UNSTORABLE_ALL = /[\0\p{Cs}\p{Noncharacter_Code_Point}]/gu;

/**
 * In the text of a JSON document: an unstorable character as it is, or a `\u` escape that may spell
 * one (NUL, any surrogate, U+FDD0–U+FDEF, U+FFFE/U+FFFF). A document this does not match holds no
 * unstorable string, so the common request skips the walk over its values.
 */
const MAYBE_IN_JSON = /[\0\p{Cs}\p{Noncharacter_Code_Point}]|\\u(?:0000|[dD][89a-fA-F]|[fF][dD][dDeE]|[fF]{3}[eEfF])/u;

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** Why `text` cannot be stored (its first offending character, named), or undefined when it can. */
export function unstorableIn(text: string): string | undefined {
  const m = UNSTORABLE.exec(text);
  if (m === null) return undefined;
  const cp = m[0].codePointAt(0) ?? 0;
  const at = `at character ${m.index + 1}`;
  if (cp === 0) return `contains U+0000 (NUL) ${at}, which no store can hold`;
  if (cp >= 0xd800 && cp <= 0xdfff)
    return `contains an unpaired surrogate (${hex(cp)}) ${at}, which is not Unicode text`;
  return `contains the Unicode noncharacter ${hex(cp)} ${at}, which is not for interchange`;
}

/** `text` with every unstorable character written as `\u{XXXX}`: for messages that quote a provider's file. */
export const printable = (text: string): string =>
  UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`) : text;

/** Whether the text of a JSON document may hold an unstorable string (false: it certainly holds none). */
export const mayHoldUnstorable = (json: string): boolean => MAYBE_IN_JSON.test(json);

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
