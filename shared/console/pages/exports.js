// @ts-check
// Data Exports: the scheduled exports (the spec's "System Settings, Data Exports, New Export").
import { weekdays, zonedTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { failing, LastRun, LoadState, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { ExportForm } from "./export-form.js";
import { DATA_TYPES, FORMATS } from "./export-values.js";

/** "Weekly on Monday at 06:30 (Europe/London)". @param {any} s */
export function scheduleText(s) {
  const day =
    s.frequency === "weekly"
      ? ` on ${weekdays[s.dayOfWeek - 1]}`
      : s.frequency === "monthly"
        ? s.dayOfMonth === "last"
          ? " on the last day"
          : ` on day ${s.dayOfMonth}`
        : "";
  return `${s.frequency[0].toUpperCase()}${s.frequency.slice(1)}${day} at ${s.time} (${s.timezone})`;
}

/** "SFTP ids@sftp.example:22 /inbound" or "Blob https://…/container, prefix daily/". @param {any} d */
export const destinationText = (d) =>
  d.type === "sftp"
    ? `SFTP ${d.username}@${d.host}:${d.port} ${d.path}`
    : `Blob storage ${d.containerUrl}${d.prefix ? `, prefix ${d.prefix}` : ""}`;

/** @param {string} value @param {[string, string][]} options */
export const labelOf = (value, options) => options.find(([v]) => v === value)?.[1] ?? value;

export function ExportsPage() {
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const list = useApi("api/v1/settings/exports", { page, pageSize: 20 });
  /** @type {any[]} */
  const exports = list.body?.data ?? [];
  return html`<${PageHeader} title="Data Exports"
      intro="Scheduled exports write a data set as CSV, Excel or JSON to an SFTP server or a blob container, daily, weekly or monthly."
      actions=${html`<button type="button" class="primary" onClick=${() => setAdding(true)}>New Export</button>`} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="Data exports" head=${["Name", "Status", "Last run", "Next run", "Data", "Schedule", "Destination"]}
          minor=${["Data", "Schedule", "Destination"]}
          empty="No exports yet. Choose New Export to schedule one."
          rows=${exports.map(
            (e) => html`<tr class=${failing(e.lastRun) ? "failing" : undefined}>
              <td class="wrap"><a href=${href("exports", e.id)}>${e.name}</a></td>
              <td><${Status} value=${e.status} /></td>
              <td><${LastRun} run=${e.lastRun} timeZone=${e.schedule.timezone} /></td>
              <td>${e.nextRunAt ? zonedTime(e.nextRunAt, e.schedule.timezone) : "—"}</td>
              <td class="minor">${labelOf(e.dataType, DATA_TYPES)}<span class="sub">${labelOf(e.format, FORMATS)}</span></td>
              <td class="minor">${scheduleText(e.schedule)}</td>
              <td class="wrap minor">${destinationText(e.destination)}</td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Exports" />`
        : null
    }
    ${adding ? html`<${ExportForm} onClose=${() => setAdding(false)} onSaved=${(/** @type {any} */ saved) => navigate(href("exports", saved.id))} />` : null}`;
}
