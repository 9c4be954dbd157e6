// @ts-check
// One export: its definition, its next run, Run now, and its runs (status, rows, file, error).
import { api } from "../lib/api.js";
import { count, dateTime, size, zonedTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { useRuns } from "../lib/use-runs.js";
import { Details, LastRun, LoadState, Notice, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { ConfirmDialog } from "../ui/dialog.js";
import { ExportForm } from "./export-form.js";
import { DATA_TYPES, FORMATS } from "./export-values.js";
import { destinationText, labelOf, scheduleText } from "./exports.js";
import { AuditSection } from "./audit.js";

/** @param {{ id?: string }} props */
export function ExportDetail({ id = "" }) {
  const path = `api/v1/settings/exports/${encodeURIComponent(id)}`;
  const item = useApi(path);
  // A run that starts or ends changes the definition's Last run: read it again then.
  const { setPage, runs, starting, runNow: startRun } = useRuns(path, () => item.reload());
  const [dialog, setDialog] = useState(/** @type {"edit" | "delete" | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {any} */
  const exp = item.body?.data;
  if (exp === undefined)
    return html`<${PageHeader} title="Export" back=${[href("exports"), "All exports"]} /><${LoadState} loading=${item.loading} error=${item.error} onRetry=${item.reload} />`;
  /** @type {any[]} */
  const runList = runs.body?.data ?? [];
  const running = starting || runList.some((r) => r.status === "running" && r.trigger === "manual");

  const runNow = () => startRun(setNotice);
  const setStatus = async (/** @type {string} */ status) => {
    try {
      await api("PATCH", path, { json: { status } });
      setNotice(
        status === "enabled"
          ? "Export enabled: it runs on its schedule."
          : "Export disabled: it runs only when you choose Run now.",
      );
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
    item.reload();
  };
  const filters = Object.entries(exp.filters ?? {})
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : v}`)
    .join("; ");

  return html`<${PageHeader} title=${exp.name} back=${[href("exports"), "All exports"]}
      actions=${html`
        <button type="button" class="primary" onClick=${runNow} aria-disabled=${running ? "true" : undefined} disabled=${starting}>${running ? "Running…" : "Run now"}</button>
        <button type="button" onClick=${() => setDialog("edit")}>Edit</button>
        ${
          exp.status === "enabled"
            ? html`<button type="button" onClick=${() => setStatus("disabled")}>Disable</button>`
            : html`<button type="button" onClick=${() => setStatus("enabled")}>Enable</button>`
        }
        <button type="button" class="danger" onClick=${() => setDialog("delete")}>Delete</button>`} />
    <${Notice} text=${notice} />
    <section class="panel" aria-labelledby="export-definition">
      <h2 id="export-definition">Definition</h2>
      <${Details} items=${[
        ["Status", html`<${Status} value=${exp.status} />`],
        [
          "Next run",
          exp.nextRunAt
            ? html`${zonedTime(exp.nextRunAt, exp.schedule.timezone)}<span class="hint"> (${dateTime(exp.nextRunAt, "UTC")} UTC)</span>`
            : "— (disabled)",
        ],
        ["Last run", html`<${LastRun} run=${exp.lastRun} timeZone=${exp.schedule.timezone} />`],
        ["Data", `${labelOf(exp.dataType, DATA_TYPES)} as ${labelOf(exp.format, FORMATS)}`],
        ["Schedule", scheduleText(exp.schedule)],
        ["Destination", destinationText(exp.destination)],
        [
          "Credentials",
          exp.destination.type === "sftp"
            ? [
                exp.destination.hasPassword ? "password stored" : "",
                exp.destination.hasPrivateKey ? "private key stored" : "",
              ]
                .filter(Boolean)
                .join(", ") || "none"
            : "managed identity",
        ],
        ...(exp.destination.type === "sftp"
          ? [
              [
                "Host key",
                exp.destination.hostKeyFingerprint
                  ? html`<span class="mono">${exp.destination.hostKeyFingerprint}</span>${
                      exp.destination.hostKeyApprovedBy
                        ? html`<span class="sub">approved by ${exp.destination.hostKeyApprovedBy}, ${dateTime(exp.destination.hostKeyApprovedAt)}</span>`
                        : null
                    }`
                  : "not approved: any key is accepted (Edit › Test connection shows the server's)",
              ],
            ]
          : []),
        ["File name", html`<span class="mono">${exp.fileName}</span>`],
        ["Filters", filters || "none"],
        ["Updated", dateTime(exp.updatedAt)],
      ]} />
    </section>
    <section class="panel" aria-labelledby="export-runs">
      <h2 id="export-runs">Runs</h2>
      <${LoadState} loading=${runs.loading} error=${runs.error} onRetry=${runs.reload} />
      ${
        runs.body
          ? html`<${Table} numeric=${["Rows", "Size", "Attempts"]} caption="Runs" head=${["Scheduled for", "Trigger", "Status", "Rows", "Size", "File name", "Attempts", "Error"]}
            empty="No runs yet. Choose Run now to run it at once."
            rows=${runList.map(
              (r) => html`<tr>
                <td>${zonedTime(r.scheduledFor, exp.schedule.timezone)}</td>
                <td>${r.trigger}</td>
                <td><${Status} value=${r.status} />${r.nextAttemptAt ? html`<span class="sub">next attempt ${zonedTime(r.nextAttemptAt, exp.schedule.timezone)}</span>` : null}</td>
                <td class="num">${count(r.rows)}</td>
                <td class="num">${size(r.bytes)}</td>
                <td class="wrap mono">${r.fileName}</td>
                <td class="num">${r.attempts}</td>
                <td class="wrap">${r.error ?? "—"}</td>
              </tr>`,
            )} />
          <${Pager} pagination=${runs.body.pagination} onPage=${setPage} label="Runs" />`
          : null
      }
    </section>
    ${
      dialog === "edit"
        ? html`<${ExportForm} exportItem=${exp} onClose=${() => setDialog(undefined)} onSaved=${() => {
            setNotice("Export saved.");
            item.reload();
          }} />`
        : null
    }
    ${
      dialog === "delete"
        ? html`<${ConfirmDialog} title="Delete export" confirmLabel="Delete export" onClose=${() => setDialog(undefined)}
          message=${html`<p>Delete the export <strong>${exp.name}</strong>?</p><p>It stops running; files already written stay where they are. This cannot be undone.</p>`}
          onConfirm=${() => api("DELETE", path)} onDone=${() => navigate(href("exports"))} />`
        : null
    }
    <${AuditSection} type="export" id=${id} />`;
}
