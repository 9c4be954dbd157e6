import { format as formatDate, isValid, parse as parseDate } from "date-fns";

/** How a feed writes numbers in text: `1.234,56` is decimalSeparator `,` with thousandsSeparator `.`. */
export interface NumberStyle {
  decimalSeparator?: "." | "," | undefined;
  thousandsSeparator?: string | undefined;
}

/** Longer texts are neither numbers nor dates; refusing them early keeps a hostile cell cheap. */
const MAX_TEXT = 100;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A strict reader of numbers written in `style`: an optional sign, digits (grouped by threes when a
 * thousands separator is set: `1.234.567` but not `1.23.4`), an optional fraction and exponent.
 * Anything else (`12abc`, `1,2,3`, an empty text) is undefined.
 */
export function numberReader(style: NumberStyle): (text: string) => number | undefined {
  const dec = style.decimalSeparator ?? ".";
  const th = style.thousandsSeparator ?? "";
  const int = th === "" ? "\\d+" : `(?:\\d{1,3}(?:${escape(th)}\\d{3})+|\\d+)`;
  const pattern = new RegExp(`^[+-]?(?:${int}(?:${escape(dec)}\\d*)?|${escape(dec)}\\d+)(?:[eE][+-]?\\d{1,3})?$`);
  return (text) => {
    const t = text.trim();
    if (t.length > MAX_TEXT || !pattern.test(t)) return undefined;
    const plain = (th === "" ? t : t.split(th).join("")).replace(dec, ".");
    const n = Number(plain);
    return Number.isFinite(n) ? n : undefined;
  };
}

/** The date format letters a feed may use (date-fns tokens): year, month (number or `MMM` name), day. */
const TOKEN = /([A-Za-z])\1*/g;
const ALLOWED: Record<string, readonly number[]> = { y: [2, 4], M: [1, 2, 3], d: [1, 2] };

/** Why `format` is not a date format a feed can use, or undefined when it is. */
export function dateFormatProblem(format: string): string | undefined {
  if (format.length > 40) return "must be at most 40 characters";
  if (format.includes("'")) return "quotes are not supported; write separators as they are";
  const seen = new Set<string>();
  for (const [run, letter] of format.matchAll(TOKEN)) {
    const lengths = ALLOWED[letter ?? ""];
    if (lengths === undefined || !lengths.includes(run.length))
      return `"${run}" is not a date token (yyyy, yy, MM, M, MMM, dd, d)`;
    if (seen.has(letter ?? "")) return `"${letter}" appears twice`;
    seen.add(letter ?? "");
  }
  if (seen.size < 3) return "must have a year (yyyy), a month (MM) and a day (dd)";
  return undefined;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const pad = (n: number, w: number): string => String(n).padStart(w, "0");

function isoDay(year: number, month: number, day: number): string | undefined {
  // Date.UTC reads years 0–99 as 1900–1999: the year is set on its own.
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/**
 * A strict reader of dates into `YYYY-MM-DD`: without a format, ISO (`2024-03-28`, or a date-time
 * of which the written date is kept); with one, the text must be exactly that format (`dd` two
 * digits, `d` without a leading zero; parsed and written back with date-fns to prove it) and a real
 * date. A spreadsheet date (a Date) gives its calendar day. Undefined for anything else.
 */
export function dateReader(format: string | undefined): (value: unknown) => string | undefined {
  const cache = new Map<string, string | undefined>();
  const reference = new Date();
  const fromText = (text: string): string | undefined => {
    if (format === undefined) {
      const m = ISO.exec(text);
      return m === null ? undefined : isoDay(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    const d = parseDate(text, format, reference);
    if (!isValid(d) || formatDate(d, format) !== text) return undefined;
    return formatDate(d, "yyyy-MM-dd");
  };
  return (value) => {
    if (value instanceof Date) {
      return Number.isNaN(value.getTime())
        ? undefined
        : isoDay(value.getUTCFullYear(), value.getUTCMonth() + 1, value.getUTCDate());
    }
    const text = String(value).trim();
    if (text.length > MAX_TEXT) return undefined;
    // Files repeat the same few dates on every row: parse each once.
    if (cache.has(text)) return cache.get(text);
    const day = fromText(text);
    if (cache.size >= 1000) cache.clear();
    cache.set(text, day);
    return day;
  };
}
