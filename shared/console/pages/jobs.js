// @ts-check
// Jobs: every refresh job (an import, a file from SFTP or a blob source), filterable, each with its
// counts and errors.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { count, dateTime } from "../lib/format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { href, navigate, replace } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, Notice, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { ConfirmDialog } from "../ui/dialog.js";
import { Field } from "../ui/fields.js";

/** The feeds by id, for their names (a job names its feed by id). */
function useFeedNames() {
  const feeds = useApi("api/v1/settings/feeds", { pageSize: 200 });
  return new Map((feeds.body?.data ?? []).map((/** @type {any} */ f) => [f.id, f.name]));
}

/** How long a job took ("1.2 s", "3 min 05 s"); while running, so far. @param {any} job */
export function durationOf(job) {
  const end = job.completedAt ? Date.parse(job.completedAt) : Date.now();
  const ms = Math.max(0, end - Date.parse(job.startedAt));
  const text =
    ms < 1000
      ? `${ms} ms`
      : ms < 60_000
        ? `${(ms / 1000).toFixed(1)} s`
        : `${Math.floor(ms / 60_000)} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")} s`;
  return job.completedAt ? text : `${text} so far`;
}

const FILTERS = /** @type {const} */ (["status", "source", "dataType", "feedId"]);

/** @param {{ query: URLSearchParams }} props */
export function JobsPage({ query }) {
  // The filters live in the address (#/jobs?feedId=…), so that a feed's page can link to its jobs.
  const filters = useForm(Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ""])));
  const [page, setPage] = useState(1);
  const v = filters.values;
  useEffect(() => {
    setPage(1);
    replace(href("jobs", undefined, v));
  }, [JSON.stringify(v)]);
  const list = useApi(
    "api/v1/jobs",
    { ...v, page, pageSize: 25 },
    { pollWhile: (body) => body.data.some((/** @type {any} */ j) => j.status === "running") },
  );
  /** @type {any[]} */
  const jobs = list.body?.data ?? [];
  const feedNames = useFeedNames();
  return html`<${PageHeader} title="Jobs" intro="Every refresh of data: an import through the API, or a file delivered over SFTP or read from a blob source." />
    <div class="filters" role="search" aria-label="Filter jobs">
      <${Field} form=${filters} name="status" label="Status" options=${[
        ["", "Any status"],
        ["running", "Running"],
        ["completed", "Completed"],
        ["failed", "Failed"],
      ]} />
      <${Field} form=${filters} name="source" label="Source" options=${[
        ["", "Any source"],
        ["api", "API"],
        ["sftp", "SFTP"],
        ["blob", "Blob source"],
      ]} />
      <${Field} form=${filters} name="dataType" label="Data type"
        options=${[
          ["", "Any data type"],
          ["positions", "Positions"],
          ["transactions", "Transactions"],
          ["prices", "Prices"],
          ["fx-rates", "FX rates"],
          ["securities", "Securities"],
        ]} />
      <${Field} form=${filters} name="feedId" label="Feed ID" class="code" />
    </div>
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} numeric=${["Received", "Accepted", "Rejected"]} caption="Jobs" head=${["Started", "Status", "Feed", "File", "Duration", "Source", "Data type", "Received", "Accepted", "Rejected"]}
          minor=${["Source", "Data type", "Received", "Accepted", "Rejected"]}
          empty=${Object.values(v).some(Boolean) ? "No jobs match these filters." : "No jobs yet."}
          rows=${jobs.map(
            (j) => html`<tr class=${j.status === "failed" ? "failing" : undefined}>
              <td><a href=${href("jobs", j.id)}>${dateTime(j.startedAt)}</a></td>
              <td><${Status} value=${j.status} />${j.duplicateOf ? html`<span class="sub">duplicate</span>` : null}</td>
              <td class="wrap">${j.feedId ? (feedNames.get(j.feedId) ?? j.feedId) : "— (API import)"}</td>
              <td class="wrap mono">${j.fileName ?? "—"}</td>
              <td>${durationOf(j)}</td>
              <td class="minor">${j.source}</td>
              <td class="minor">${j.dataType}</td>
              <td class="num minor">${count(j.counts.received)}</td>
              <td class="num minor">${count(j.counts.accepted)}</td>
              <td class="num minor">${count(j.counts.rejected)}</td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Jobs" />`
        : null
    }`;
}

/** @param {{ id?: string }} props */
export function JobDetail({ id = "" }) {
  const item = useApi(
    `api/v1/jobs/${encodeURIComponent(id)}`,
    {},
    { pollWhile: (body) => body.data.status === "running" },
  );
  const feedNames = useFeedNames();
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {any} */
  const job = item.body?.data;
  if (job === undefined)
    return html`<${PageHeader} title="Job" back=${[href("jobs"), "All jobs"]} /><${LoadState} loading=${item.loading} error=${item.error} onRetry=${item.reload} />`;
  const path = `api/v1/jobs/${encodeURIComponent(job.id)}`;
  // The file is fetched with the session's token (a plain link would carry none), then saved under its name.
  const download = async () => {
    setNotice(undefined);
    try {
      const blob = await api("GET", `${path}/file`, { blob: true });
      const url = URL.createObjectURL(blob);
      const link = document.createElement("a");
      link.href = url;
      link.download = job.fileName ?? "file";
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  /** @type {string | undefined} */
  let newJob;
  const canReprocess = job.feedId !== null && job.status === "failed" && job.file?.container === "quarantine";
  return html`<${PageHeader} title=${`Job ${job.id}`} back=${[href("jobs"), "All jobs"]}
      actions=${
        job.file
          ? html`<button type="button" onClick=${download}>Download file</button>
            ${canReprocess ? html`<button type="button" class="primary" onClick=${() => setConfirming(true)}>Process again</button>` : null}`
          : null
      } />
    <${Notice} text=${notice} />
    ${
      confirming
        ? html`<${ConfirmDialog} title="Process the file again" confirmLabel="Process again" onClose=${() => setConfirming(false)}
          message=${html`<p>Process <span class="mono">${job.fileName}</span> again with the feed's mapping as it is now?</p><p>It becomes a new job; its rows are written if the file now passes. This job stays as it is.</p>`}
          onConfirm=${async () => {
            newJob = (await api("POST", `${path}/reprocess`)).data.id;
          }}
          onDone=${() => newJob !== undefined && navigate(href("jobs", newJob))} />`
        : null
    }
    <section class="panel" aria-labelledby="job-summary">
      <h2 id="job-summary">Summary</h2>
      <${Details} items=${[
        ["Status", html`<${Status} value=${job.status} />`],
        ["Source", job.source],
        ["Data type", job.dataType],
        ["File", job.fileName],
        [
          "Feed",
          job.feedId ? html`<a href=${href("feeds", job.feedId)}>${feedNames.get(job.feedId) ?? job.feedId}</a>` : null,
        ],
        [
          "Received / accepted / rejected",
          `${count(job.counts.received)} / ${count(job.counts.accepted)} / ${count(job.counts.rejected)}`,
        ],
        [
          "Processed again from",
          job.reprocessOf ? html`<a href=${href("jobs", job.reprocessOf)}>${job.reprocessOf}</a>` : null,
        ],
        [
          "Duplicate of",
          job.duplicateOf ? html`<a href=${href("jobs", job.duplicateOf)}>${job.duplicateOf}</a>` : null,
        ],
        ["Started", dateTime(job.startedAt)],
        ["Completed", dateTime(job.completedAt)],
        ["Duration", durationOf(job)],
      ]} />
    </section>
    <section class="panel" aria-labelledby="job-errors">
      <h2 id="job-errors">Errors</h2>
      <${Table} caption="Errors" head=${["Field", "Message"]} empty="No errors."
        rows=${job.errors.map((/** @type {any} */ e) => html`<tr><td class="mono">${e.field}</td><td class="wrap">${e.message}</td></tr>`)} />
      <p class="hint"><a href=${href("exceptions")}>Exceptions</a> list the data-quality problems this job opened.</p>
    </section>`;
}
