// @ts-check
// A webhook's deliveries: filter by status and event, each one's attempts with what the endpoint
// answered, Retry on a failed one. The list refreshes itself while a delivery is pending.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { dateTime } from "../lib/format.js";
import { Fragment, html, useEffect, useState } from "../lib/html.js";
import { useApi } from "../lib/use-api.js";
import { LoadState, Notice, Pager, Status, Table } from "../ui/bits.js";
import { Field } from "../ui/fields.js";

/** What the endpoint did with one attempt: "HTTP 200 in 3 ms", "no answer (connection refused) after 15000 ms". @param {any} attempt */
export function attemptOutcome(attempt) {
  if (attempt === undefined) return "—";
  const { statusCode, error, durationMs } = attempt;
  if (statusCode === undefined) return `no answer (${error ?? "unknown"}) after ${durationMs} ms`;
  const extra = error && !String(error).includes(String(statusCode)) ? ` (${error})` : "";
  return `HTTP ${statusCode}${extra} in ${durationMs} ms`;
}

const EVENTS = [
  "portfolio.valued",
  "transaction.settled",
  "exception.created",
  "exception.resolved",
  "refresh_job.completed",
  "refresh_job.failed",
  "webhook.test",
];

/** @param {{ webhookPath: string, refresh: number, webhookEnabled: boolean }} props */
export function Deliveries({ webhookPath, refresh, webhookEnabled }) {
  const filters = useForm({ status: "", event: "" });
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState(/** @type {string | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const { status, event } = filters.values;
  const list = useApi(
    `${webhookPath}/deliveries`,
    { status, event, page, pageSize: 20 },
    { pollWhile: (body) => body.data.some((/** @type {any} */ d) => d.status === "pending") },
  );
  useEffect(() => setPage(1), [status, event]);
  useEffect(() => list.reload(), [refresh]);
  /** @type {any[]} */
  const deliveries = list.body?.data ?? [];

  const retry = async (/** @type {any} */ delivery) => {
    try {
      await api("POST", `${webhookPath}/deliveries/${encodeURIComponent(delivery.id)}/retry`);
      setNotice(`Delivery of ${delivery.event} sent again.`);
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
    list.reload();
  };

  return html`<section class="panel" aria-labelledby="deliveries-heading">
    <div class="panel-head"><h2 id="deliveries-heading">Deliveries</h2></div>
    <div class="filters">
      <${Field} form=${filters} name="status" label="Status" options=${[
        ["", "Any status"],
        ["pending", "Pending"],
        ["succeeded", "Succeeded"],
        ["failed", "Failed"],
      ]} />
      <${Field} form=${filters} name="event" label="Event" options=${[["", "Any event"], ...EVENTS.map((e) => /** @type {[string, string]} */ ([e, e]))]} />
    </div>
    <${Notice} text=${notice} />
    ${!webhookEnabled ? html`<p class="hint">The webhook is disabled: enable it to retry failed deliveries.</p>` : null}
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} numeric=${["Attempts"]} caption="Deliveries" head=${["Event", "Status", "Attempts", "Response", "Created", "Next attempt or done", ""]}
          empty=${status || event ? "No deliveries match these filters." : "No deliveries yet."}
          rows=${deliveries.map(
            (d) => html`<${Fragment} key=${d.id}>
              <tr class=${open === d.id ? "expanded" : ""}>
                <td><code>${d.event}</code></td>
                <td><${Status} value=${d.status} />${d.failureReason ? html`<span class="sub">${d.failureReason}</span>` : null}</td>
                <td class="num">${d.attempts}</td>
                <td class="wrap">${attemptOutcome(d.lastAttempt)}</td>
                <td>${dateTime(d.createdAt)}</td>
                <td>${d.status === "pending" ? `due ${dateTime(d.nextAttemptAt)}` : dateTime(d.completedAt)}</td>
                <td>
                  <div class="buttons">
                    <button type="button" class="small" aria-expanded=${open === d.id} onClick=${() => setOpen(open === d.id ? undefined : d.id)}>Attempts</button>
                    ${d.status === "failed" ? html`<button type="button" class="small" onClick=${() => retry(d)}>Retry</button>` : null}
                  </div>
                </td>
              </tr>
              ${open === d.id ? html`<tr class="expanded"><td colspan="7"><${AttemptLog} path=${`${webhookPath}/deliveries/${encodeURIComponent(d.id)}`} attempts=${d.attempts} /></td></tr>` : null}
            </${Fragment}>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Deliveries" />`
        : null
    }
  </section>`;
}

/** Every attempt of one delivery, oldest first, with what the endpoint answered. @param {{ path: string, attempts: number }} props */
function AttemptLog({ path, attempts }) {
  const detail = useApi(path);
  useEffect(() => detail.reload(), [attempts]);
  /** @type {any[]} */
  const log = detail.body?.data.attemptLog ?? [];
  if (detail.body === undefined)
    return html`<${LoadState} loading=${detail.loading} error=${detail.error} onRetry=${detail.reload} />`;
  if (log.length === 0) return html`<p class="hint">No attempt yet.</p>`;
  return html`<ol class="attempts">
    ${log.map((a) => html`<li>${dateTime(a.at)}: ${attemptOutcome(a)}</li>`)}
  </ol>`;
}
