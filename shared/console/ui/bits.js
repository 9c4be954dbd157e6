// @ts-check
// Small pieces every page uses: headings, status badges, shown-once secrets, tables with pages,
// loading and error states.
import { html, useState } from "../lib/html.js";
import { count, dateTime, zonedTime } from "../lib/format.js";

/**
 * The page's heading (focused when the page opens) with its intro and main actions.
 * @param {{ title: string, intro?: unknown, actions?: unknown, back?: [string, string] }} props
 */
export function PageHeader({ title, intro, actions, back }) {
  return html`<header class="page-head">
    ${back ? html`<a class="back" href=${back[0]}><span aria-hidden="true">‹ </span>${back[1]}</a>` : null}
    <div class="page-title">
      <h1 tabindex="-1">${title}</h1>
      ${actions ? html`<div class="actions">${actions}</div>` : null}
    </div>
    ${intro ? html`<p class="intro">${intro}</p>` : null}
  </header>`;
}

const TONES = /** @type {Record<string, string>} */ ({
  enabled: "good",
  active: "good",
  live: "good",
  succeeded: "good",
  completed: "good",
  resolved: "good",
  accepted: "good",
  healthy: "good",
  passed: "good",
  skipped: "off",
  pending: "busy",
  running: "busy",
  retrying: "warn",
  testing: "busy",
  disabled: "off",
  paused: "off",
  open: "warn",
  warning: "warn",
  failed: "bad",
  error: "bad",
  rejected: "bad",
});

/** @param {{ value: string }} props */
export const Status = ({ value }) => html`<span class=${`status ${TONES[value] ?? "neutral"}`}>${value}</span>`;

/**
 * A secret the service shows once: read-only, selectable, with a Copy button.
 * @param {{ label: string, value: string, note?: unknown }} props
 */
export function SecretOnce({ label, value, note }) {
  const [copied, setCopied] = useState("");
  const id = `secret-${label.replace(/\W+/g, "-").toLowerCase()}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(`${label} copied to the clipboard.`);
    } catch {
      const input = document.getElementById(id);
      if (input instanceof HTMLInputElement) input.select();
      setCopied("The browser refused to copy: the text is selected, press Ctrl+C (Cmd+C on a Mac) to copy it.");
    }
  };
  return html`<div class="secret">
    <label for=${id}>${label}</label>
    <div class="secret-row">
      <input
        id=${id}
        class="mono"
        readonly
        value=${value}
        onFocus=${(/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.currentTarget).select()}
      />
      <button type="button" onClick=${copy}>Copy</button>
    </div>
    <p class="hint">${note ?? "Shown once: copy it now. The service keeps only a hash and cannot show it again."}</p>
    <p role="status" class="copied">${copied}</p>
  </div>`;
}

/**
 * Label/value pairs.
 * @param {{ items: [string, unknown][] }} props
 */
export const Details = ({ items }) =>
  html`<dl class="details">
    ${items.map(
      ([term, value]) =>
        html`<div>
          <dt>${term}</dt>
          <dd>${value ?? "—"}</dd>
        </div>`,
    )}
  </dl>`;

/**
 * The last run of something that runs (an export, a blob source) or the last file of a feed: its status
 * and when, why it failed, when it tries again. Nothing yet says so.
 * @param {{ run: { status: string, completedAt?: string | null, startedAt?: string, error?: string, nextAttemptAt?: string, fileName?: string | null } | null | undefined, timeZone?: string, href?: string }} props
 */
export function LastRun({ run, timeZone, href }) {
  if (run === null || run === undefined) return html`<span class="sub none">never</span>`;
  // In the item's own time zone, named (as its next run is), so it cannot be read as another zone's.
  /** @param {string | null | undefined} iso */
  const at = (iso) => (timeZone && iso ? zonedTime(iso, timeZone) : dateTime(iso));
  const when =
    run.status === "retrying" && run.nextAttemptAt
      ? `next attempt ${at(run.nextAttemptAt)}`
      : at(run.completedAt ?? run.startedAt);
  const badge = html`<${Status} value=${run.status} />`;
  return html`${href ? html`<a href=${href} class="status-link">${badge}</a>` : badge}
    ${run.fileName ? html`<span class="sub mono">${run.fileName}</span>` : null}
    <span class="sub">${when}</span>
    ${run.error && run.status !== "succeeded" && run.status !== "completed" ? html`<span class="sub run-error">${run.error}</span>` : null}`;
}

/** Whether a last run or job marks its item as failing (its row stands out). @param {{ status: string } | null | undefined} run */
export const failing = (run) => run?.status === "failed" || run?.status === "retrying";

/**
 * A table that scrolls sideways on a narrow window (and can be scrolled from the keyboard).
 * @param {{ caption: string, head: string[], rows: unknown[], empty: string, hideCaption?: boolean, numeric?: string[], minor?: string[] }} props
 *   `numeric`: the columns of numbers, headed to the right like their figures; `minor`: the columns a
 *   narrow window leaves out (their cells carry class "minor"), so that name, status and next run stay in view
 */
export function Table({ caption, head, rows, empty, hideCaption = true, numeric = [], minor = [] }) {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${caption}>
    <table>
      <caption class=${hideCaption ? "visually-hidden" : ""}>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${head.map(
            (h) =>
              html`<th scope="col" class=${[numeric.includes(h) ? "num" : "", minor.includes(h) ? "minor" : ""].join(" ").trim() || undefined}>${h}</th>`,
          )}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/**
 * Previous / next through a paged list.
 * @param {{ pagination: import("../lib/api.js").Pagination | undefined, onPage: (page: number) => void, label: string }} props
 */
export function Pager({ pagination, onPage, label }) {
  if (pagination === undefined || pagination.totalPages <= 1) {
    return pagination && pagination.totalItems > 0
      ? html`<p class="pager-count">${count(pagination.totalItems)} in all</p>`
      : null;
  }
  const { page, totalPages, totalItems } = pagination;
  return html`<nav class="pager" aria-label=${`${label} pages`}>
    <button type="button" onClick=${() => onPage(page - 1)} disabled=${page <= 1}>Previous page</button>
    <span>Page ${page} of ${totalPages} (${count(totalItems)} in all)</span>
    <button type="button" onClick=${() => onPage(page + 1)} disabled=${page >= totalPages}>Next page</button>
  </nav>`;
}

/**
 * What a list shows while it loads or after it failed to.
 * @param {{ loading: boolean, error: import("../lib/api.js").ApiError | undefined, onRetry: () => void }} props
 */
export function LoadState({ loading, error, onRetry }) {
  if (error) {
    return html`<div role="alert" class="load-error">
      <p>${error.message}</p>
      <button type="button" onClick=${onRetry}>Try again</button>
    </div>`;
  }
  return loading ? html`<p class="loading" role="status">Loading…</p>` : null;
}

/**
 * A message after an action ("Webhook deleted."), announced politely.
 * @param {{ text: string | undefined }} props
 */
export const Notice = ({ text }) => html`<p role="status" class=${text ? "notice" : "notice empty"}>${text ?? ""}</p>`;
