// @ts-check
// Exceptions: data-quality problems (validation failures, missing or stale prices, …), filterable,
// resolved when dealt with.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { dateTime } from "../lib/format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { href } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { LoadState, Notice, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { Field } from "../ui/fields.js";

const TYPES = [
  "VALIDATION_FAILED",
  "UNKNOWN_SECURITY",
  "MISSING_PRICE",
  "STALE_PRICE",
  "PRICE_JUMP",
  "MISSING_FX_RATE",
  "NAV_MISMATCH",
  "VALUE_OUT_OF_RANGE",
  "REPLICA_REJECTED",
];

export function ExceptionsPage() {
  const filters = useForm({ status: "open", type: "", severity: "" });
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const [resolving, setResolving] = useState(/** @type {string | undefined} */ (undefined));
  const v = filters.values;
  useEffect(() => setPage(1), [v.status, v.type, v.severity]);
  const list = useApi("api/v1/exceptions", { ...v, page, pageSize: 25 });
  /** @type {any[]} */
  const exceptions = list.body?.data ?? [];

  const resolve = async (/** @type {any} */ e) => {
    setResolving(e.id);
    try {
      await api("PATCH", `api/v1/exceptions/${encodeURIComponent(e.id)}`, { json: { status: "resolved" } });
      setNotice(`Resolved: ${e.message}`);
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    } finally {
      setResolving(undefined);
      list.reload();
    }
  };

  return html`<${PageHeader} title="Exceptions" intro="Data-quality problems the service found while importing and valuing: rejected rows, unknown securities, missing or stale prices and FX rates, price jumps. Missing and stale prices and missing FX rates resolve themselves (by system) when a revaluation no longer finds them." />
    <div class="filters" role="search" aria-label="Filter exceptions">
      <${Field} form=${filters} name="status" label="Status" options=${[
        ["", "Any status"],
        ["open", "Open"],
        ["resolved", "Resolved"],
      ]} />
      <${Field} form=${filters} name="type" label="Type" options=${[["", "Any type"], ...TYPES.map((t) => /** @type {[string, string]} */ ([t, t]))]} />
      <${Field} form=${filters} name="severity" label="Severity" options=${[
        ["", "Any severity"],
        ["info", "Info"],
        ["warning", "Warning"],
        ["error", "Error"],
      ]} />
    </div>
    <${Notice} text=${notice} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="Exceptions" head=${["Created", "Type", "Severity", "Message", "Entity", "Job", "Status", ""]}
          empty=${v.type || v.severity ? "No exceptions match these filters." : v.status === "open" ? "No open exceptions." : "No exceptions."}
          rows=${exceptions.map(
            (e) => html`<tr>
              <td>${dateTime(e.createdAt)}</td>
              <td class="mono">${e.type}</td>
              <td><${Status} value=${e.severity} /></td>
              <td class="wrap wide">${e.message}</td>
              <td class="mono break">${e.entity.type} ${e.entity.id}</td>
              <td class="break">${e.jobId ? html`<a href=${href("jobs", e.jobId)}>${e.jobId}</a>` : "—"}</td>
              <td><${Status} value=${e.status} />${e.resolvedAt ? html`<span class="sub">${dateTime(e.resolvedAt)}${e.resolvedBy ? ` by ${e.resolvedBy}` : ""}</span>` : null}${e.resolution ? html`<span class="sub wrap">${e.resolution}</span>` : null}</td>
              <td>${
                e.status === "open"
                  ? html`<button type="button" class="small" aria-label=${`Resolve: ${e.message}`} aria-disabled=${resolving === e.id ? "true" : undefined}
                    onClick=${() => resolving === undefined && resolve(e)}>${resolving === e.id ? "Resolving…" : "Resolve"}</button>`
                  : null
              }</td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Exceptions" />`
        : null
    }`;
}
