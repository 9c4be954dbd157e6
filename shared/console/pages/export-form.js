// @ts-check
// New Export / Edit: what (data type, format), when (frequency, time, time zone, day), where (SFTP or
// blob storage; secrets write-only) and the file name, with a live preview of the next runs and
// their files (POST /api/v1/settings/exports/preview: the scheduler's own rules).
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { weekdays, zonedTime } from "../lib/format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { Dialog } from "../ui/dialog.js";
import { Checkbox, Field, Form, FormButtons } from "../ui/fields.js";

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
const ZONES = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];

/** The form's values from a stored export (or the defaults of a new one). @param {any} [e] */
function initialValues(e) {
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
function scheduleBody(s, patch) {
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
function exportBody(v, patch) {
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

/**
 * The next runs and their file names, asked of the service as the form changes (after a pause in typing).
 * @param {ExportValues} v @param {string | undefined} exportId
 */
function usePreview(v, exportId) {
  const [preview, setPreview] = useState(/** @type {{ runs?: any, problem?: string } | undefined} */ (undefined));
  const request = {
    dataType: v.dataType,
    format: v.format,
    schedule: scheduleBody(v.schedule, false),
    fileName: v.fileName,
    ...(exportId ? { exportId } : {}),
  };
  const key = JSON.stringify(request);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api("POST", "api/v1/settings/exports/preview", { json: request }).then(
        (answer) => live && setPreview({ runs: answer.data }),
        (error) =>
          live &&
          setPreview({
            problem: error.details?.[0] ? `${error.details[0].field}: ${error.details[0].message}` : error.message,
          }),
      );
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return preview;
}

/** @param {{ preview: ReturnType<typeof usePreview> }} props */
function Preview({ preview }) {
  let content;
  if (preview === undefined) content = html`<p>Working out the next runs…</p>`;
  else if (preview.problem) content = html`<p>No preview yet: ${preview.problem}</p>`;
  else {
    const { timezone, nextRuns } = preview.runs;
    content = html`<p>Next file: <strong class="mono">${nextRuns[0]?.fileName}</strong></p>
      <p>Next runs (${timezone}):</p>
      <ul>${nextRuns.map((/** @type {any} */ r) => html`<li>${zonedTime(r.at, timezone)}: <span class="mono">${r.fileName}</span></li>`)}</ul>`;
  }
  return html`<div class="preview" role="status" aria-live="polite" aria-label="Preview of the next runs">${content}</div>`;
}

/** @param {{ exportItem?: any, onClose: () => void, onSaved: (saved: any) => void }} props */
export function ExportForm({ exportItem, onClose, onSaved }) {
  const editing = exportItem !== undefined;
  const form = useForm(initialValues(exportItem));
  const v = form.values;
  const preview = usePreview(v, exportItem?.id);
  const sftp = v.destination.type === "sftp";
  const save = () =>
    form.submit(async (values) => {
      const answer = editing
        ? await api("PATCH", `api/v1/settings/exports/${encodeURIComponent(exportItem.id)}`, {
            json: exportBody(values, true),
          })
        : await api("POST", "api/v1/settings/exports", { json: exportBody(values, false) });
      onSaved(answer.data);
      onClose();
    });
  const secretHint = (/** @type {boolean} */ stored) =>
    editing && stored
      ? "Stored (write-only): leave empty to keep it, or type a new one."
      : "Write-only: stored encrypted, never shown again.";

  return html`<${Dialog} title=${editing ? "Edit export" : "New Export"} onClose=${onClose} busy=${form.pending} wide>
    <${Form} form=${form} onSubmit=${save}>
      <div class="grid-3">
        <${Field} form=${form} name="name" label="Name" class="span-2" />
        <${Checkbox} form=${form} name="enabled" label="Enabled" hint="Runs on its schedule while enabled." />
        <${Field} form=${form} name="dataType" label="Data type" options=${DATA_TYPES} />
        <${Field} form=${form} name="format" label="Format" options=${FORMATS} />
      </div>
      <fieldset><legend>Schedule</legend>
        <div class="grid-3">
          <${Field} form=${form} name="schedule.frequency" label="Frequency" options=${[
            ["daily", "Daily"],
            ["weekly", "Weekly"],
            ["monthly", "Monthly"],
          ]} />
          <${Field} form=${form} name="schedule.time" label="Time" placeholder="HH:mm" inputMode="numeric" hint="24-hour, in the time zone." />
          <${Field} form=${form} name="schedule.timezone" label="Time zone" list="time-zones" hint="IANA name, e.g. Europe/London." />
          ${
            v.schedule.frequency === "weekly"
              ? html`<${Field} form=${form} name="schedule.dayOfWeek" label="Day of week" options=${weekdays.map((d, i) => /** @type {[string, string]} */ ([String(i + 1), d]))} />`
              : null
          }
          ${
            v.schedule.frequency === "monthly"
              ? html`<${Field} form=${form} name="schedule.dayOfMonth" label="Day of month"
                options=${[...Array.from({ length: 28 }, (_, i) => /** @type {[string, string]} */ ([String(i + 1), String(i + 1)])), ["last", "Last day"]]} />`
              : null
          }
        </div>
        <datalist id="time-zones">${ZONES.map((z) => html`<option value=${z}></option>`)}</datalist>
      </fieldset>
      <fieldset><legend>Where the files go</legend>
        <div class="grid-3">
          <${Field} form=${form} name="destination.type" label="Destination" options=${[
            ["sftp", "SFTP"],
            ["blob", "Blob storage"],
          ]} />
        </div>
        ${
          sftp
            ? html`<div class="grid-3">
              <${Field} form=${form} name="destination.host" label="Host" class="span-2" />
              <${Field} form=${form} name="destination.port" label="Port" inputMode="numeric" />
              <${Field} form=${form} name="destination.username" label="Username" />
              <${Field} form=${form} name="destination.password" label="Password" type="password" autocomplete="new-password" hint=${secretHint(exportItem?.destination.hasPassword)} />
              <${Field} form=${form} name="destination.path" label="Path" hint="A directory, created if missing." />
              <${Field} form=${form} name="destination.privateKey" label="Private key" type="textarea" rows=${3} class="span-2"
                hint=${`Instead of a password: an unencrypted PEM or OpenSSH key. ${secretHint(exportItem?.destination.hasPrivateKey)}`} />
              <${Field} form=${form} name="destination.hostKeyFingerprint" label="Host key fingerprint" hint="Optional: SHA256:… as ssh-keygen -l prints it; any other host key is refused." />
            </div>`
            : html`<div class="grid-2">
              <${Field} form=${form} name="destination.containerUrl" label="Container URL" placeholder="https://ACCOUNT.blob.core.windows.net/CONTAINER"
                hint="Grant the service's managed identity Storage Blob Data Contributor on it (no SAS, no key)." />
              <${Field} form=${form} name="destination.prefix" label="Prefix" hint="Optional: put before each file name, e.g. daily/." />
            </div>`
        }
      </fieldset>
      <${Field} form=${form} name="fileName" label="File name" class="code"
        hint="Tokens: {dataType}, {format}, {date:yyyyMMdd}, {time:HHmm}, {exportId}; dates and times in the export's time zone." />
      <${Preview} preview=${preview} />
      <details class="more"><summary>Filters (optional)</summary>
        <div class="grid-2">
          ${
            v.dataType === "transactions" || v.dataType === "prices"
              ? html`<${Field} form=${form} name="filters.period" label="Period"
                options=${[
                  ["", "Since the previous run (by frequency)"],
                  ["previous-day", "Previous day"],
                  ["previous-week", "Previous week"],
                  ["previous-month", "Previous month"],
                  ["all", "All dates"],
                ]} />`
              : null
          }
          <${Field} form=${form} name="filters.portfolioIds" label="Portfolio IDs" hint="Optional, separated by commas." />
          <${Field} form=${form} name="filters.clientId" label="Client" hint="Optional: only the portfolios of this clientId." />
          <${Field} form=${form} name="filters.status" label="Record status" hint="Optional: only records with this status (e.g. active, settled)." />
        </div>
      </details>
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}
