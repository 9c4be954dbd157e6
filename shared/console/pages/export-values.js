// @ts-check
// An export's form values and the API body made of them (New Export, Edit, and the preview).

/** @type {[string, string][]} */
export const DATA_TYPES = [
  ["portfolios", "Portfolios"],
  ["holdings", "Holdings"],
  ["positions", "Positions"],
  ["transactions", "Transactions"],
  ["prices", "Prices"],
  ["fx-rates", "FX rates"],
  ["securities", "Securities"],
  ["exceptions", "Exceptions"],
];
/** @type {[string, string][]} */
export const FORMATS = [
  ["csv", "CSV"],
  ["xlsx", "Excel"],
  ["json", "JSON"],
];
/** The form's values from a stored export (or the defaults of a new one). @param {any} [e] */
export function initialValues(e) {
  const d = e?.destination ?? { type: "sftp" };
  const f = e?.filters ?? {};
  return {
    name: e?.name ?? "",
    dataType: e?.dataType ?? "holdings",
    format: e?.format ?? "csv",
    schedule: {
      frequency: e?.schedule.frequency ?? "daily",
      time: e?.schedule.time ?? "06:00",
      timezone: e?.schedule.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC",
      dayOfWeek: String(e?.schedule.dayOfWeek ?? 1),
      dayOfMonth: String(e?.schedule.dayOfMonth ?? 1),
    },
    destination: {
      type: d.type,
      host: d.host ?? "",
      port: String(d.port ?? 22),
      username: d.username ?? "",
      password: "",
      privateKey: "",
      path: d.path ?? "/",
      hostKeyFingerprint: d.hostKeyFingerprint ?? "",
      containerUrl: d.containerUrl ?? "",
      prefix: d.prefix ?? "",
    },
    fileName: e?.fileName ?? "{dataType}_{date:yyyyMMdd}.{format}",
    filters: {
      period: f.period ?? "",
      portfolioIds: (f.portfolioIds ?? []).join(", "),
      clientId: f.clientId ?? "",
      status: f.status ?? "",
    },
    enabled: (e?.status ?? "enabled") === "enabled",
  };
}
/** @typedef {ReturnType<typeof initialValues>} ExportValues */

/** A number when it is one, else what was typed (so that the API names the field). @param {string} s */
const numberOr = (s) => (/^\d+$/.test(s.trim()) ? Number(s) : s);

/** @param {ExportValues["schedule"]} s @param {boolean} patch nulls remove the days that do not apply */
export function scheduleBody(s, patch) {
  const none = patch ? null : undefined;
  return {
    frequency: s.frequency,
    time: s.time,
    timezone: s.timezone,
    dayOfWeek: s.frequency === "weekly" ? numberOr(s.dayOfWeek) : none,
    dayOfMonth: s.frequency === "monthly" ? (s.dayOfMonth === "last" ? "last" : numberOr(s.dayOfMonth)) : none,
  };
}

/** The API's body: only what applies, secrets only when typed. @param {ExportValues} v @param {boolean} patch */
export function exportBody(v, patch) {
  const d = v.destination;
  const clear = patch ? null : undefined;
  const destination =
    d.type === "sftp"
      ? {
          type: "sftp",
          host: d.host,
          port: numberOr(d.port),
          username: d.username,
          path: d.path,
          ...(d.password ? { password: d.password } : {}),
          ...(d.privateKey ? { privateKey: d.privateKey } : {}),
          hostKeyFingerprint: d.hostKeyFingerprint || clear,
        }
      : { type: "blob", containerUrl: d.containerUrl, prefix: d.prefix || clear };
  const ids = v.filters.portfolioIds.split(/[\s,]+/).filter(Boolean);
  const filters = {
    ...(v.filters.period ? { period: v.filters.period } : {}),
    ...(ids.length > 0 ? { portfolioIds: ids } : {}),
    ...(v.filters.clientId ? { clientId: v.filters.clientId } : {}),
    ...(v.filters.status ? { status: v.filters.status } : {}),
  };
  return {
    name: v.name,
    dataType: v.dataType,
    format: v.format,
    schedule: scheduleBody(v.schedule, patch),
    destination,
    fileName: v.fileName,
    filters: Object.keys(filters).length > 0 ? filters : patch ? null : undefined,
    status: v.enabled ? "enabled" : "disabled",
  };
}
