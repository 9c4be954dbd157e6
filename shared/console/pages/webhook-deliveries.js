// @ts-check
// A webhook's deliveries: filter by status, event and the days they were created; each one's subject,
// its attempts with what was sent and what came back, Retry on a failed one and Retry now on a pending
// one. The list refreshes itself while a delivery is pending.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { dateTime } from "../lib/format.js";
import { Fragment, html, useEffect, useState } from "../lib/html.js";
import { useApi } from "../lib/use-api.js";
import { LoadState, Notice, Pager, Status, Table } from "../ui/bits.js";
import { Field } from "../ui/fields.js";
import { AttemptLog, attemptOutcome } from "./webhook-attempts.js";

const EVENTS = [
  "portfolio.valued",
  "transaction.settled",
  "exception.created",
  "exception.resolved",
  "refresh_job.completed",
  "refresh_job.failed",
  "webhook.test",
];

/** What each event's subject is. */
const SUBJECT_KIND = /** @type {Record<string, string>} */ ({
  "portfolio.valued": "Portfolio",
  "transaction.settled": "Transaction",
  "exception.created": "Exception",
  "refresh_job.completed": "Job",
  "refresh_job.failed": "Job",
  "webhook.test": "Webhook",
});

/**
 * A day picked in the reader's time zone as the API's bound: its first or its last millisecond.
 * @param {string} day YYYY-MM-DD @param {"start" | "end"} edge
 */
function dayBound(day, edge) {
  if (day === "") return undefined;
  const at = new Date(`${day}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** @param {{ webhookPath: string, refresh: number, webhookEnabled: boolean }} props */
export function Deliveries({ webhookPath, refresh, webhookEnabled }) {
  const filters = useForm({ status: "", event: "", from: "", to: "" });
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState(/** @type {string | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const { status, event, from, to } = filters.values;
  const list = useApi(
    `${webhookPath}/deliveries`,
    { status, event, from: dayBound(from, "start"), to: dayBound(to, "end"), page, pageSize: 20 },
    { pollWhile: (body) => body.data.some((/** @type {any} */ d) => d.status === "pending") },
  );
  useEffect(() => setPage(1), [status, event, from, to]);
  useEffect(() => list.reload(), [refresh]);
  /** @type {any[]} */
  const deliveries = list.body?.data ?? [];
  const filtered = status || event || from || to;

  const retry = async (/** @type {any} */ delivery) => {
    try {
      await api("POST", `${webhookPath}/deliveries/${encodeURIComponent(delivery.id)}/retry`);
      setNotice(
        delivery.status === "pending"
          ? `Delivery of ${delivery.event} sent now; its retry schedule continues after it.`
          : `Delivery of ${delivery.event} sent again.`,
      );
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
      <${Field} form=${filters} name="from" label="Created from" type="date" />
      <${Field} form=${filters} name="to" label="Created to" type="date" />
    </div>
    <${Notice} text=${notice} />
    ${!webhookEnabled ? html`<p class="hint">The webhook is disabled: enable it to retry or recover its deliveries.</p>` : null}
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} numeric=${["Attempts"]} caption="Deliveries" head=${["Event", "Subject", "Status", "Attempts", "Response", "Created", "Next attempt or done", ""]}
          empty=${filtered ? "No deliveries match these filters." : "No deliveries yet."}
          rows=${deliveries.map(
            (d) => html`<${Fragment} key=${d.id}>
              <tr class=${open === d.id ? "expanded" : ""}>
                <td><code>${d.event}</code></td>
                <td class="break">${d.subject ? html`<span class="sub">${SUBJECT_KIND[d.event] ?? "Subject"}</span> <span class="mono">${d.subject}</span>` : "—"}</td>
                <td><${Status} value=${d.status} />${d.failureReason ? html`<span class="sub">${d.failureReason}</span>` : null}</td>
                <td class="num">${d.attempts}</td>
                <td class="wrap">${attemptOutcome(d.lastAttempt)}</td>
                <td>${dateTime(d.createdAt)}</td>
                <td>${d.status === "pending" ? `due ${dateTime(d.nextAttemptAt)}` : dateTime(d.completedAt)}</td>
                <td>
                  <div class="buttons">
                    <button type="button" class="small" aria-expanded=${open === d.id} onClick=${() => setOpen(open === d.id ? undefined : d.id)}>Attempts</button>
                    ${
                      webhookEnabled && d.status !== "succeeded"
                        ? html`<button type="button" class="small" onClick=${() => retry(d)}>${d.status === "pending" ? "Retry now" : "Retry"}</button>`
                        : null
                    }
                  </div>
                </td>
              </tr>
              ${open === d.id ? html`<tr class="expanded"><td colspan="8"><${AttemptLog} path=${`${webhookPath}/deliveries/${encodeURIComponent(d.id)}`} attempts=${d.attempts} /></td></tr>` : null}
            </${Fragment}>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Deliveries" />`
        : null
    }
  </section>`;
}
