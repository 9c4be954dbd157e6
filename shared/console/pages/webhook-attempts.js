// @ts-check
// One delivery's attempts, oldest first: what was sent (headers and body) and what came back (the
// status, headers and the first 4 KB of the body) or why nothing did, as the delivery's GET keeps them.
import { dateTime } from "../lib/format.js";
import { html, useEffect } from "../lib/html.js";
import { useApi } from "../lib/use-api.js";
import { LoadState } from "../ui/bits.js";

/** What the endpoint did with one attempt: "HTTP 200 in 3 ms", "no answer (connection refused) after 15000 ms". @param {any} attempt */
export function attemptOutcome(attempt) {
  if (attempt === undefined) return "—";
  const { statusCode, error, durationMs } = attempt;
  if (statusCode === undefined) return `no answer (${error ?? "unknown"}) after ${durationMs} ms`;
  const extra = error && !String(error).includes(String(statusCode)) ? ` (${error})` : "";
  return `HTTP ${statusCode}${extra} in ${durationMs} ms`;
}

/** A body as sent or received: JSON indented, anything else as it is. @param {string} text */
function readable(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** @param {{ headers: Record<string, string> }} props */
function HeaderList({ headers }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return html`<p class="hint">No headers were kept for this attempt.</p>`;
  return html`<dl class="headers">
    ${entries.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}
  </dl>`;
}

/** @param {{ attempt: any }} props */
function Response({ attempt }) {
  const { response } = attempt;
  if (attempt.responseOmitted)
    return html`<p class="hint">The answer to this older attempt is no longer kept: a delivery keeps the latest answers, 16 KB in all.</p>`;
  if (response === undefined) return html`<p>No answer came: ${attempt.error ?? "the request failed"}.</p>`;
  return html`<p><strong>HTTP ${attempt.statusCode}</strong> after ${attempt.durationMs} ms</p>
    <${HeaderList} headers=${response.headers} />
    ${
      response.body === ""
        ? html`<p class="hint">The answer had no body.</p>`
        : html`<pre class="payload">${readable(response.body)}</pre>`
    }
    ${response.bodyTruncated ? html`<p class="hint">Only the first 4 KB of the body are kept.</p>` : null}`;
}

/**
 * Every attempt of one delivery, oldest first, each with its request and response to open.
 * @param {{ path: string, attempts: number }} props
 */
export function AttemptLog({ path, attempts }) {
  const detail = useApi(path);
  useEffect(() => detail.reload(), [attempts]);
  if (detail.body === undefined)
    return html`<${LoadState} loading=${detail.loading} error=${detail.error} onRetry=${detail.reload} />`;
  /** @type {any} */
  const delivery = detail.body.data;
  /** @type {any[]} */
  const log = delivery.attemptLog;
  if (log.length === 0) return html`<p class="hint">No attempt yet.</p>`;
  // The log keeps the latest attempts: number them from the delivery's count.
  const first = delivery.attempts - log.length + 1;
  return html`<ol class="attempts" start=${first}>
    ${log.map(
      (a, i) => html`<li>
        <p class="attempt-head">Attempt ${first + i}, ${dateTime(a.at)}: ${attemptOutcome(a)}</p>
        <details>
          <summary>Request sent (attempt ${first + i})</summary>
          <${HeaderList} headers=${a.request.headers} />
          <pre class="payload">${readable(a.request.body)}</pre>
        </details>
        <details>
          <summary>Response received (attempt ${first + i})</summary>
          <${Response} attempt=${a} />
        </details>
      </li>`,
    )}
  </ol>`;
}
