// @ts-check
// New Export / Edit: what (data type, format), when (frequency, time, time zone, day), where (SFTP or
// blob storage; secrets write-only) and the file name, with a live preview of the next runs and
// their files.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { weekdays } from "../lib/format.js";
import { html } from "../lib/html.js";
import { Dialog } from "../ui/dialog.js";
import { Checkbox, Field, Form, FormButtons } from "../ui/fields.js";
import { ConnectionTest } from "./connection-test.js";
import { Preview, usePreview } from "./export-preview.js";
import { DATA_TYPES, exportBody, FORMATS, initialValues } from "./export-values.js";

const ZONES = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];

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
        <${ConnectionTest} form=${form} path="api/v1/settings/exports/test-destination" approvable=${sftp}
          body=${() =>
            editing
              ? { exportId: exportItem.id, destination: exportBody(v, true).destination }
              : { destination: exportBody(v, false).destination }} />
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
