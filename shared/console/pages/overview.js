// @ts-check
// Overview, the landing page: what needs an administrator now. Webhooks that are failing or were
// disabled, jobs and runs that failed in the last 24 hours, open exceptions by type and the replica's
// lag; each a link to the item. Read from the same API as every other page.
import { count, dateTime } from "../lib/format.js";
import { html } from "../lib/html.js";
import { href } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { failing, LoadState, PageHeader, Status } from "../ui/bits.js";
import { EXCEPTION_TYPES } from "./exceptions.js";

const DAY_MS = 24 * 3600_000;
/** @param {string | undefined | null} iso */
const withinDay = (iso) => iso !== undefined && iso !== null && Date.now() - Date.parse(iso) <= DAY_MS;

/** A panel of the overview: its heading, what it found, or that all is well. @param {{ id: string, title: string, count?: number, read: any, children: unknown, allWell: string }} props */
function Panel({ id, title, count: n, read, children, allWell }) {
  const bad = n !== undefined && n > 0;
  return html`<section class=${`panel overview-panel ${bad ? "attention" : ""}`} aria-labelledby=${id}>
    <h2 id=${id}>${title}${n !== undefined && read.body ? html` <span class=${`count ${bad ? "bad" : "good"}`}>${n}</span>` : null}</h2>
    <${LoadState} loading=${read.loading} error=${read.error} onRetry=${read.reload} />
    ${read.body ? (bad || n === undefined ? children : html`<p class="all-well">${allWell}</p>`) : null}
  </section>`;
}

function FailingWebhooks() {
  const read = useApi("api/v1/settings/webhooks", { pageSize: 200 });
  /** @type {any[]} */
  const hooks = (read.body?.data ?? []).filter((/** @type {any} */ w) => w.status === "disabled" || w.failingSince);
  return html`<${Panel} id="ov-webhooks" title="Failing webhooks" count=${hooks.length} read=${read} allWell="Every webhook is delivering.">
    <ul class="overview-list">
      ${hooks.map(
        (w) => html`<li>
          <a href=${href("webhooks", w.id)}>${w.url}</a> <${Status} value=${w.status === "disabled" ? "disabled" : "failing"} />
          <span class="sub">${
            w.status === "disabled"
              ? w.disabledReason
                ? `Disabled because ${w.disabledReason}`
                : "Disabled by an administrator"
              : `No delivery has succeeded since ${dateTime(w.failingSince)}`
          }</span>
        </li>`,
      )}
    </ul>
  </${Panel}>`;
}

function FailedJobs() {
  const read = useApi("api/v1/jobs", { status: "failed", pageSize: 50 });
  /** @type {any[]} */
  const jobs = (read.body?.data ?? []).filter((/** @type {any} */ j) => withinDay(j.completedAt ?? j.startedAt));
  return html`<${Panel} id="ov-jobs" title="Failed jobs, last 24 hours" count=${jobs.length} read=${read} allWell="No job failed in the last 24 hours.">
    <ul class="overview-list">
      ${jobs.map(
        (j) => html`<li>
          <a href=${href("jobs", j.id)}>${j.fileName ?? `${j.dataType} import`}</a> <${Status} value=${j.status} />
          <span class="sub">${j.source} · ${j.dataType} · ${dateTime(j.completedAt ?? j.startedAt)}${j.errors?.[0] ? ` · ${j.errors[0].message}` : ""}</span>
        </li>`,
      )}
    </ul>
    ${jobs.length > 0 ? html`<p><a href=${href("jobs", undefined, { status: "failed" })}>All failed jobs</a></p>` : null}
  </${Panel}>`;
}

function FailedRuns() {
  const exportsRead = useApi("api/v1/settings/exports", { pageSize: 200 });
  const sourcesRead = useApi("api/v1/settings/blob-sources", { pageSize: 200 });
  /** @param {any} item */
  const recent = (item) =>
    failing(item.lastRun) &&
    (item.lastRun.status === "retrying" || withinDay(item.lastRun.completedAt ?? item.lastRun.startedAt));
  const items = [
    ...(exportsRead.body?.data ?? [])
      .filter(recent)
      .map((/** @type {any} */ e) => ({ area: "exports", kind: "Export", item: e })),
    ...(sourcesRead.body?.data ?? [])
      .filter(recent)
      .map((/** @type {any} */ s) => ({ area: "blob-sources", kind: "Blob source", item: s })),
  ];
  const read = {
    body: exportsRead.body && sourcesRead.body ? true : undefined,
    loading: exportsRead.loading || sourcesRead.loading,
    error: exportsRead.error ?? sourcesRead.error,
    reload: () => {
      exportsRead.reload();
      sourcesRead.reload();
    },
  };
  return html`<${Panel} id="ov-runs" title="Failed runs, last 24 hours" count=${items.length} read=${read} allWell="Every export and blob source's last run worked.">
    <ul class="overview-list">
      ${items.map(
        ({ area, kind, item }) => html`<li>
          <a href=${href(area, item.id)}>${item.name}</a> <${Status} value=${item.lastRun.status} />
          <span class="sub">${kind} · ${
            item.lastRun.status === "retrying" && item.lastRun.nextAttemptAt
              ? `next attempt ${dateTime(item.lastRun.nextAttemptAt)}`
              : dateTime(item.lastRun.completedAt ?? item.lastRun.startedAt)
          }${item.lastRun.error ? ` · ${item.lastRun.error}` : ""}</span>
        </li>`,
      )}
    </ul>
  </${Panel}>`;
}

/** One type's open exceptions: how many (a read of one item, for the total). @param {{ type: string }} props */
function OpenOfType({ type }) {
  const read = useApi("api/v1/exceptions", { status: "open", type, pageSize: 1 });
  const total = read.body?.pagination.totalItems;
  if (total === undefined || total === 0) return null;
  return html`<li><a href=${href("exceptions", undefined, { status: "open", type })}>${type}</a> <span class="count bad">${count(total)}</span></li>`;
}

function OpenExceptions() {
  const read = useApi("api/v1/exceptions", { status: "open", pageSize: 1 });
  const total = read.body?.pagination.totalItems ?? 0;
  return html`<${Panel} id="ov-exceptions" title="Open exceptions" count=${total} read=${read} allWell="No open data-quality exception.">
    <ul class="overview-list by-type" aria-label="Open exceptions by type">
      ${EXCEPTION_TYPES.map((t) => html`<${OpenOfType} key=${t} type=${t} />`)}
    </ul>
  </${Panel}>`;
}

function ReplicaLag() {
  const read = useApi("api/v1/settings/replica");
  const r = read.body?.data;
  // No replica (404) or another plan (403): said, not shown as a failure.
  const error = read.error;
  const absent = error !== undefined && (error.status === 404 || error.status === 403);
  const lag = r?.lagSeconds;
  return html`<section class="panel overview-panel" aria-labelledby="ov-replica">
    <h2 id="ov-replica">Replica lag</h2>
    ${
      absent
        ? html`<p class="all-well">${error?.status === 404 ? "This deployment has no read-only SQL replica." : error?.message}</p>`
        : html`<${LoadState} loading=${read.loading} error=${read.error} onRetry=${read.reload} />
          ${
            r
              ? html`<p><a href=${href("replica")}>${lag === null || lag === undefined ? "Not measured yet" : `${count(lag)} s behind`}</a></p>`
              : null
          }`
    }
  </section>`;
}

export function OverviewPage() {
  return html`<${PageHeader} title="Overview" intro="What needs attention now: each item links to where it can be fixed." />
    <div class="overview">
      <${FailingWebhooks} />
      <${FailedJobs} />
      <${FailedRuns} />
      <${OpenExceptions} />
      <${ReplicaLag} />
    </div>`;
}
