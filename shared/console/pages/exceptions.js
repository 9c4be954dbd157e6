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

export const EXCEPTION_TYPES = [
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

/** The console's page of each kind of entity an exception names, where it has one. */
const ENTITY_PAGES = /** @type {Record<string, string>} */ ({
  feed: "feeds",
  blobSource: "blob-sources",
  job: "jobs",
  webhook: "webhooks",
  export: "exports",
  apiClient: "api-clients",
});

/**
 * An exception's entity: a link to its page in the console where it has one, else its type and id; a
 * feed by its name (an exception names it by id).
 * @param {{ entity: { type: string, id: string }, feedNames: Map<string, string> }} props
 */
function Entity({ entity, feedNames }) {
  const area = ENTITY_PAGES[entity.type];
  const name = entity.type === "feed" ? feedNames.get(entity.id) : undefined;
  const label = name !== undefined ? `Feed ${name}` : `${entity.type} ${entity.id}`;
  return area ? html`<a href=${href(area, entity.id)}>${label}</a>` : html`${label}`;
}

/** @param {{ query: URLSearchParams }} props filters from the address (the Overview links to open exceptions of a type) */
export function ExceptionsPage({ query }) {
  const filters = useForm({
    status: query.get("status") ?? "open",
    type: query.get("type") ?? "",
    severity: query.get("severity") ?? "",
  });
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const [resolving, setResolving] = useState(/** @type {string | undefined} */ (undefined));
  const v = filters.values;
  useEffect(() => setPage(1), [v.status, v.type, v.severity]);
  const list = useApi("api/v1/exceptions", { ...v, page, pageSize: 25 });
  const feeds = useApi("api/v1/settings/feeds", { pageSize: 200 });
  const feedNames = new Map((feeds.body?.data ?? []).map((/** @type {any} */ f) => [f.id, f.name]));
  /** @type {any[]} */
  const exceptions = list.body?.data ?? [];
  const [selected, setSelected] = useState(/** @type {Set<string>} */ (new Set()));
  const [note, setNote] = useState("");
  const [bulk, setBulk] = useState(false);
  // A selection is of the rows shown: another page or filter starts afresh.
  useEffect(() => setSelected(new Set()), [v.status, v.type, v.severity, page]);
  const open = exceptions.filter((e) => e.status === "open");
  const toggle = (/** @type {string} */ id) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const resolveSelected = async () => {
    if (selected.size === 0 || bulk) return;
    setBulk(true);
    try {
      const resolution = note.trim();
      const answer = await api("POST", "api/v1/exceptions/resolve", {
        json: { ids: [...selected], ...(resolution ? { resolution } : {}) },
      });
      const { resolved, notFound, alreadyResolved } = answer.data;
      const others = notFound.length + alreadyResolved.length;
      setNotice(
        `Resolved ${resolved.length} exception${resolved.length === 1 ? "" : "s"}${others > 0 ? `; ${others} had been resolved or removed meanwhile` : ""}.`,
      );
      setSelected(new Set());
      setNote("");
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    } finally {
      setBulk(false);
      list.reload();
    }
  };

  const resolve = async (/** @type {any} */ e) => {
    setResolving(e.id);
    try {
      const resolution = note.trim();
      await api("PATCH", `api/v1/exceptions/${encodeURIComponent(e.id)}`, {
        json: { status: "resolved", ...(resolution ? { resolution } : {}) },
      });
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
      <${Field} form=${filters} name="type" label="Type" options=${[["", "Any type"], ...EXCEPTION_TYPES.map((t) => /** @type {[string, string]} */ ([t, t]))]} />
      <${Field} form=${filters} name="severity" label="Severity" options=${[
        ["", "Any severity"],
        ["info", "Info"],
        ["warning", "Warning"],
        ["error", "Error"],
      ]} />
    </div>
    <${Notice} text=${notice} />
    ${
      open.length > 0
        ? html`<div class="filters" role="group" aria-label="Resolve selected exceptions">
            <label>Note (optional)<input type="text" maxlength="1000" value=${note} onInput=${(/** @type {Event} */ e) => setNote(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></label>
            <button type="button" class="primary" aria-disabled=${selected.size === 0 || bulk ? "true" : undefined}
              onClick=${resolveSelected}>${bulk ? "Resolving…" : `Resolve selected (${selected.size})`}</button>
          </div>`
        : null
    }
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="Exceptions" head=${["Select", "Created", "Type", "Severity", "Message", "Entity", "Job", "Status"]}
          empty=${v.type || v.severity ? "No exceptions match these filters." : v.status === "open" ? "No open exceptions." : "No exceptions."}
          rows=${exceptions.map(
            (e) => html`<tr>
              <td>${
                e.status === "open"
                  ? html`<input type="checkbox" aria-label=${`Select: ${e.message}`} checked=${selected.has(e.id)} onChange=${() => toggle(e.id)} />`
                  : null
              }</td>
              <td>${dateTime(e.createdAt)}</td>
              <td class="mono">${e.type}</td>
              <td><${Status} value=${e.severity} /></td>
              <td class="wrap wide">${e.message}</td>
              <td class="mono wrap"><${Entity} entity=${e.entity} feedNames=${feedNames} /></td>
              <td class="break">${e.jobId ? html`<a href=${href("jobs", e.jobId)}>${e.jobId}</a>` : "—"}</td>
              <td>
                <${Status} value=${e.status} />${e.resolvedAt ? html`<span class="sub">${dateTime(e.resolvedAt)}${e.resolvedBy ? ` by ${e.resolvedBy}` : ""}</span>` : null}${e.resolution ? html`<span class="sub wrap">${e.resolution}</span>` : null}
                ${
                  /* Resolve sits under the status it changes, not in a column of its own: the table then fits 1280 px. */
                  e.status === "open"
                    ? html`<div class="cell-action"><button type="button" class="small" aria-label=${`Resolve: ${e.message}`} aria-disabled=${resolving === e.id ? "true" : undefined}
                      onClick=${() => resolving === undefined && resolve(e)}>${resolving === e.id ? "Resolving…" : "Resolve"}</button></div>`
                    : null
                }
              </td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Exceptions" />`
        : null
    }`;
}
