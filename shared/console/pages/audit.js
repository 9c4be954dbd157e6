// @ts-check
// Audit log: every change made through System Settings (who, which request, what changed from what to
// what; secrets read "(redacted)"), and the section each settings item's page shows of its own entries.
import { useForm } from "../lib/form.js";
import { dateTime } from "../lib/format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { href, replace } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { LoadState, PageHeader, Pager, Table } from "../ui/bits.js";
import { Field } from "../ui/fields.js";

const FILTERS = /** @type {const} */ (["resourceType", "resourceId", "actor", "from", "to"]);

/** Each item type's label and the console area its page is in. */
const TYPES = /** @type {Record<string, [string, string]>} */ ({
  "api-client": ["API client", "api-clients"],
  webhook: ["Webhook", "webhooks"],
  feed: ["Feed", "feeds"],
  "blob-source": ["Blob source", "blob-sources"],
  export: ["Data export", "exports"],
  "replica-login": ["Replica login", "replica"],
});

/**
 * A value as read: a list's items separated by ", " (JSON without spaces is one long word that cannot wrap).
 * @param {unknown} value
 */
const shown = (value) =>
  value === null || value === undefined
    ? "—"
    : typeof value === "string"
      ? value
      : Array.isArray(value)
        ? `[${value.map((item) => JSON.stringify(item)).join(", ")}]`
        : JSON.stringify(value);

/** @param {{ changes: { field: string, from: unknown, to: unknown }[] }} entry */
function Changes({ changes }) {
  if (changes.length === 0) return html`<span class="sub">—</span>`;
  return html`<ul class="changes">
    ${changes.map(
      (c) =>
        html`<li><span class="mono">${c.field}</span>: <span class="wrap">${shown(c.from)}</span> → <span class="wrap">${shown(c.to)}</span></li>`,
    )}
  </ul>`;
}

/** @param {{ entries: any[], caption: string, empty: string, withItem: boolean }} props */
function Entries({ entries, caption, empty, withItem }) {
  const head = ["When", "Who", "Action", ...(withItem ? ["Item"] : []), "Changes", "Request"];
  return html`<${Table} caption=${caption} head=${head} empty=${empty}
    rows=${entries.map((e) => {
      const [label, area] = TYPES[e.resource.type] ?? [e.resource.type, ""];
      const item = area === "replica" ? href("replica") : href(area, e.resource.id);
      return html`<tr>
        <td>${dateTime(e.at)}</td>
        <td class="mono">${e.actor}</td>
        <td>${e.action}</td>
        ${withItem ? html`<td>${label} <a href=${item}>${e.resource.name}</a></td>` : null}
        <td class="wide"><${Changes} changes=${e.changes} /></td>
        <td class="request-id"><span class="mono">${e.requestId}</span></td>
      </tr>`;
    })} />`;
}

/** @param {{ query: URLSearchParams }} props */
export function AuditPage({ query }) {
  // The filters live in the address (#/audit?resourceType=webhook&resourceId=…): an item's page links here.
  const filters = useForm(Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ""])));
  const [page, setPage] = useState(1);
  const v = filters.values;
  useEffect(() => {
    setPage(1);
    replace(href("audit", undefined, v));
  }, [JSON.stringify(v)]);
  const list = useApi("api/v1/settings/audit", { ...v, page, pageSize: 25 });
  return html`<${PageHeader} title="Audit log" intro="Every change made through System Settings: who made it, in which request, and what changed from what to what. Secrets are never shown." />
    <div class="filters" role="search" aria-label="Filter the audit log">
      <${Field} form=${filters} name="resourceType" label="Item type" options=${[
        ["", "Any item"],
        ...Object.entries(TYPES).map(([type, [label]]) => /** @type {[string, string]} */ ([type, label])),
      ]} />
      <${Field} form=${filters} name="resourceId" label="Item ID" class="code" />
      <${Field} form=${filters} name="actor" label="Client ID" class="code" />
      <${Field} form=${filters} name="from" label="From" type="date" />
      <${Field} form=${filters} name="to" label="To" type="date" />
    </div>
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Entries} entries=${list.body.data} caption="Audit log" withItem=${true}
            empty=${Object.values(v).some(Boolean) ? "No changes match these filters." : "No changes yet."} />
          <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Audit log" />`
        : null
    }`;
}

/**
 * The "Audit" section of one settings item's page (or of every item of a type, for the replica's logins,
 * which have no page of their own): its latest changes, and a link to all of them.
 * @param {{ type: string, id?: string }} props
 */
export function AuditSection({ type, id }) {
  const list = useApi("api/v1/settings/audit", { resourceType: type, resourceId: id, pageSize: 10 });
  const heading = `audit-${id ?? type}`;
  return html`<section class="panel" aria-labelledby=${heading}>
    <h2 id=${heading}>Audit</h2>
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${list.body ? html`<${Entries} entries=${list.body.data} caption="Audit" withItem=${false} empty="No changes recorded." />` : null}
    <p class="hint"><a href=${href("audit", undefined, { resourceType: type, resourceId: id })}>${id === undefined ? "All their changes" : "All changes of this item"} in the audit log</a></p>
  </section>`;
}
