// @ts-check
// A feed's form values and the API body made of them (New Feed, Edit).
import { mappingBody, ruleText } from "./feed-mapping.js";

/** @type {[string, string][]} */
export const FEED_DATA_TYPES = [
  ["positions", "Positions"],
  ["transactions", "Transactions"],
  ["prices", "Prices"],
  ["fx-rates", "FX rates"],
  ["securities", "Securities"],
];
/** @type {[string, string][]} */
export const FEED_FORMATS = [
  ["csv", "CSV"],
  ["xlsx", "Excel (.xlsx)"],
  ["xml", "XML"],
  ["json", "JSON"],
  ["fix", "FIX"],
];
/** @type {[string, string][]} */
export const FEED_STATUSES = [
  ["testing", "Testing (files are checked, nothing is written)"],
  ["live", "Live (files are written)"],
  ["paused", "Paused (files wait)"],
];

/** The formats each option applies to (as the API checks them). */
export const APPLIES = /** @type {Record<string, string[]>} */ ({
  delimiter: ["csv"],
  encoding: ["csv", "xml"],
  headerRow: ["csv", "xlsx"],
  sheet: ["xlsx"],
  recordPath: ["xml", "json"],
  msgTypes: ["fix"],
});

/** @param {any} [feed] */
export function initialValues(feed) {
  const o = feed?.options ?? {};
  return {
    name: feed?.name ?? "",
    provider: feed?.provider ?? "",
    dataType: feed?.dataType ?? "positions",
    format: feed?.format ?? "csv",
    filePattern: feed?.filePattern ?? "",
    status: feed?.status ?? "testing",
    options: {
      delimiter: o.delimiter ?? ",",
      decimalSeparator: o.decimalSeparator ?? ".",
      thousandsSeparator: o.thousandsSeparator ?? "",
      dateFormat: o.dateFormat ?? "",
      encoding: o.encoding ?? "utf-8",
      headerRow: String(o.headerRow ?? ""),
      sheet: String(o.sheet ?? ""),
      recordPath: o.recordPath ?? "",
      msgTypes: (o.msgTypes ?? []).join(", "),
    },
    mapping: Object.fromEntries(Object.entries(feed?.mapping ?? {}).map(([k, v]) => [k, ruleText(v)])),
    validation: {
      onRowError: feed?.validation?.onRowError ?? "reject-file",
      maxRejectedRows: String(feed?.validation?.maxRejectedRows ?? ""),
    },
    sftp: { publicKeys: (feed?.sftp?.publicKeys ?? []).join("\n") },
  };
}
/** @typedef {ReturnType<typeof initialValues>} FeedValues */

/** Only the options that apply to the format and differ from the defaults. @param {FeedValues} v */
function optionsBody(v) {
  const o = v.options;
  const applies = (/** @type {string} */ name) => (APPLIES[name] ?? [v.format]).includes(v.format);
  /** @type {Record<string, unknown>} */
  const out = {};
  if (applies("delimiter") && o.delimiter !== ",") out.delimiter = o.delimiter;
  if (o.decimalSeparator !== ".") out.decimalSeparator = o.decimalSeparator;
  if (o.thousandsSeparator !== "") out.thousandsSeparator = o.thousandsSeparator;
  if (o.dateFormat.trim() !== "") out.dateFormat = o.dateFormat.trim();
  if (applies("encoding") && o.encoding !== "utf-8") out.encoding = o.encoding;
  if (applies("headerRow") && o.headerRow.trim() !== "")
    out.headerRow = /^\d+$/.test(o.headerRow.trim()) ? Number(o.headerRow) : o.headerRow;
  if (applies("sheet") && o.sheet.trim() !== "")
    out.sheet = /^\d+$/.test(o.sheet.trim()) ? Number(o.sheet) : o.sheet.trim();
  if (applies("recordPath") && o.recordPath.trim() !== "") out.recordPath = o.recordPath.trim();
  if (applies("msgTypes") && o.msgTypes.trim() !== "") out.msgTypes = o.msgTypes.split(/[\s,]+/).filter(Boolean);
  return out;
}

/** @param {FeedValues} v */
export function feedBody(v) {
  const max = v.validation.maxRejectedRows.trim();
  return {
    name: v.name,
    provider: v.provider,
    dataType: v.dataType,
    format: v.format,
    filePattern: v.filePattern,
    status: v.status,
    options: optionsBody(v),
    mapping: mappingBody(v.mapping),
    validation: {
      onRowError: v.validation.onRowError,
      ...(v.validation.onRowError === "skip-row" && max !== ""
        ? { maxRejectedRows: /^\d+$/.test(max) ? Number(max) : max }
        : {}),
    },
  };
}
