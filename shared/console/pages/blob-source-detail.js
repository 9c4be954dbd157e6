// @ts-check
// One blob source: its settings, Run now, and its runs (what was listed, matched, copied, skipped).
import { api } from "../lib/api.js";
import { count, dateTime, zonedTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { useRuns } from "../lib/use-runs.js";
import { Details, LoadState, Notice, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { ConfirmDialog } from "../ui/dialog.js";
import { BlobSourceForm, blobScheduleText, useFeedOptions } from "./blob-sources.js";
import { AuditSection } from "./audit.js";

/** @param {{ id?: string }} props */
export function BlobSourceDetail({ id = "" }) {
  const path = `api/v1/settings/blob-sources/${encodeURIComponent(id)}`;
  const item = useApi(path);
  const { setPage, runs, starting, runNow: startRun } = useRuns(path);
  const { feeds } = useFeedOptions();
  const [dialog, setDialog] = useState(/** @type {"edit" | "delete" | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {any} */
  const source = item.body?.data;
  if (source === undefined)
    return html`<${PageHeader} title="Blob source" back=${[href("blob-sources"), "All blob sources"]} /><${LoadState} loading=${item.loading} error=${item.error} onRetry=${item.reload} />`;
  /** @type {any[]} */
  const runList = runs.body?.data ?? [];
  const running = starting || runList.some((r) => r.status === "running");
  const feed = feeds.find((f) => f.id === source.feedId);

  const runNow = () => startRun(setNotice);
  const setStatus = async (/** @type {string} */ status) => {
    try {
      await api("PATCH", path, { json: { status } });
      setNotice(
        status === "enabled" ? "Blob source enabled." : "Blob source disabled: it runs only when you choose Run now.",
      );
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
    item.reload();
  };

  return html`<${PageHeader} title=${source.name} back=${[href("blob-sources"), "All blob sources"]}
      actions=${html`
        <button type="button" class="primary" onClick=${runNow} aria-disabled=${running ? "true" : undefined} disabled=${starting}>${running ? "Running…" : "Run now"}</button>
        <button type="button" onClick=${() => setDialog("edit")}>Edit</button>
        ${
          source.status === "enabled"
            ? html`<button type="button" onClick=${() => setStatus("disabled")}>Disable</button>`
            : html`<button type="button" onClick=${() => setStatus("enabled")}>Enable</button>`
        }
        <button type="button" class="danger" onClick=${() => setDialog("delete")}>Delete</button>`} />
    <${Notice} text=${notice} />
    <section class="panel" aria-labelledby="source-settings">
      <h2 id="source-settings">Settings</h2>
      <${Details} items=${[
        ["Status", html`<${Status} value=${source.status} />`],
        ["Next run", source.nextRunAt ? `${zonedTime(source.nextRunAt, "UTC")}` : "— (disabled)"],
        ["Container URL", source.containerUrl],
        ["Prefix", source.prefix],
        ["File pattern", html`<code>${source.filePattern}</code>`],
        ["Feed", feed ? html`<a href=${href("feeds", feed.id)}>${feed.name}</a>` : source.feedId],
        ["Schedule", blobScheduleText(source.schedule)],
        ["Updated", dateTime(source.updatedAt)],
      ]} />
    </section>
    <section class="panel" aria-labelledby="source-runs">
      <h2 id="source-runs">Runs</h2>
      <${LoadState} loading=${runs.loading} error=${runs.error} onRetry=${runs.reload} />
      ${
        runs.body
          ? html`<${Table} numeric=${["Listed", "Matched", "Copied", "Skipped"]} caption="Runs" head=${["Scheduled for", "Trigger", "Status", "Listed", "Matched", "Copied", "Skipped", "Files copied", "Error"]}
            empty="No runs yet. Choose Run now to read the container at once."
            rows=${runList.map(
              (r) => html`<tr>
                <td>${zonedTime(r.scheduledFor, "UTC")}</td>
                <td>${r.trigger}</td>
                <td><${Status} value=${r.status} /></td>
                <td class="num">${count(r.listed)}</td>
                <td class="num">${count(r.matched)}</td>
                <td class="num">${count(r.copied)}</td>
                <td class="num">${count(r.skipped)}</td>
                <td class="wrap mono">${r.files.map((/** @type {any} */ f) => html`<span class="sub">${f.name}</span>`)}</td>
                <td class="wrap">${r.error ?? "—"}</td>
              </tr>`,
            )} />
          <${Pager} pagination=${runs.body.pagination} onPage=${setPage} label="Runs" />`
          : null
      }
      <p class="hint">Each copied file becomes a job of the feed: see <a href=${href("jobs", undefined, { feedId: source.feedId, source: "blob" })}>its jobs</a>.</p>
    </section>
    ${
      dialog === "edit"
        ? html`<${BlobSourceForm} source=${source} onClose=${() => setDialog(undefined)} onSaved=${() => {
            setNotice("Blob source saved.");
            item.reload();
          }} />`
        : null
    }
    ${
      dialog === "delete"
        ? html`<${ConfirmDialog} title="Delete blob source" confirmLabel="Delete blob source" onClose=${() => setDialog(undefined)}
          message=${html`<p>Delete the blob source <strong>${source.name}</strong>?</p><p>The service stops reading the container; nothing in it is touched. This cannot be undone.</p>`}
          onConfirm=${() => api("DELETE", path)} onDone=${() => navigate(href("blob-sources"))} />`
        : null
    }
    <${AuditSection} type="blob-source" id=${id} />`;
}
