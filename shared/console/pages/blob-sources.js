// @ts-check
// Blob Sources: a customer's container read with the service's managed identity on a schedule; each
// new matching file becomes a job of a feed.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { zonedTime } from "../lib/format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { failing, LastRun, LoadState, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { Dialog } from "../ui/dialog.js";
import { Checkbox, Field, Form, FormButtons } from "../ui/fields.js";
import { ConnectionTest } from "./connection-test.js";

/** "Every 15 minutes from 00:05 UTC" or the NCRONTAB expression. @param {any} schedule */
export function blobScheduleText(schedule) {
  if (typeof schedule === "string") return `NCRONTAB ${schedule} (UTC)`;
  const every = { "15m": "15 minutes", "1h": "hour", "1d": "day" }[/** @type {"15m" | "1h" | "1d"} */ (schedule.every)];
  return `Every ${every}${schedule.at ? ` from ${schedule.at} UTC` : ""}`;
}

/** The feeds to choose from (a blob source's files become jobs of one of them). */
export function useFeedOptions() {
  const feeds = useApi("api/v1/settings/feeds", { pageSize: 200 });
  /** @type {any[]} */
  const list = feeds.body?.data ?? [];
  return {
    feeds: list,
    options: list.map((f) => /** @type {[string, string]} */ ([f.id, `${f.name} (${f.filePattern})`])),
  };
}

/** @param {{ source?: any, onClose: () => void, onSaved: (saved: any) => void }} props */
export function BlobSourceForm({ source, onClose, onSaved }) {
  const editing = source !== undefined;
  const { options } = useFeedOptions();
  const cron = typeof source?.schedule === "string";
  const form = useForm({
    name: source?.name ?? "",
    containerUrl: source?.containerUrl ?? "",
    prefix: source?.prefix ?? "",
    filePattern: source?.filePattern ?? "",
    feedId: source?.feedId ?? "",
    scheduleKind: cron ? "cron" : "every",
    cron: cron ? source.schedule : "",
    schedule: { every: cron ? "1d" : (source?.schedule.every ?? "1d"), at: cron ? "" : (source?.schedule.at ?? "") },
    enabled: (source?.status ?? "enabled") === "enabled",
  });
  const v = form.values;
  // The first feed is the choice until another is made (a select shows it chosen).
  useEffect(() => {
    if (v.feedId === "" && options.length > 0) form.set("feedId", options[0]?.[0]);
  }, [options.length]);
  const save = () =>
    form.submit(async (values) => {
      const body = {
        name: values.name,
        containerUrl: values.containerUrl,
        prefix: values.prefix === "" ? (editing ? null : undefined) : values.prefix,
        filePattern: values.filePattern,
        feedId: values.feedId,
        status: values.enabled ? "enabled" : "disabled",
        schedule:
          values.scheduleKind === "cron"
            ? values.cron
            : { every: values.schedule.every, ...(values.schedule.at ? { at: values.schedule.at } : {}) },
      };
      const answer = editing
        ? await api("PATCH", `api/v1/settings/blob-sources/${encodeURIComponent(source.id)}`, { json: body })
        : await api("POST", "api/v1/settings/blob-sources", { json: body });
      onSaved(answer.data);
      onClose();
    });
  return html`<${Dialog} title=${editing ? "Edit blob source" : "New Blob Source"} onClose=${onClose} busy=${form.pending} wide>
    <${Form} form=${form} onSubmit=${save}>
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" />
        <${Checkbox} form=${form} name="enabled" label="Enabled" hint="Runs on its schedule while enabled." />
        <${Field} form=${form} name="containerUrl" label="Container URL" placeholder="https://ACCOUNT.blob.core.windows.net/CONTAINER"
          hint="The customer grants the service's managed identity Storage Blob Data Reader on it (no SAS, no key)." />
        <${Field} form=${form} name="prefix" label="Prefix" hint="Optional: only blobs under it, e.g. daily/." />
        <${Field} form=${form} name="filePattern" label="File pattern" class="code" placeholder="positions_*.csv" hint="A glob on the file name." />
        <${Field} form=${form} name="feedId" label="Feed" options=${options.length > 0 ? options : [["", "No feed yet: create one first"]]}
          hint="Its format, mapping and validation ingest the files." />
      </div>
      <${ConnectionTest} form=${form} path="api/v1/settings/blob-sources/test"
        body=${() => ({ containerUrl: v.containerUrl, ...(v.prefix !== "" ? { prefix: v.prefix } : {}) })} />
      <fieldset><legend>Schedule</legend>
        <div class="grid-3">
          <${Field} form=${form} name="scheduleKind" label="Runs" options=${[
            ["every", "At a fixed interval"],
            ["cron", "On an NCRONTAB expression"],
          ]} />
          ${
            v.scheduleKind === "every"
              ? html`<${Field} form=${form} name="schedule.every" label="Every" options=${[
                  ["15m", "15 minutes"],
                  ["1h", "Hour"],
                  ["1d", "Day"],
                ]} />
                <${Field} form=${form} name="schedule.at" label="At (UTC)" placeholder="HH:mm" inputMode="numeric" hint="Optional anchor; default 00:00." />`
              : html`<${Field} form=${form} name="cron" errorName="schedule" label="NCRONTAB expression" class="code span-2" placeholder="0 30 6 * * 1-5"
                hint="Six fields (second minute hour day month weekday), UTC; at most once a minute." />`
          }
        </div>
      </fieldset>
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}

export function BlobSourcesPage() {
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const list = useApi("api/v1/settings/blob-sources", { page, pageSize: 20 });
  const { feeds } = useFeedOptions();
  /** @type {any[]} */
  const sources = list.body?.data ?? [];
  return html`<${PageHeader} title="Blob Sources"
      intro="Containers in a customer's blob storage that the service reads with its managed identity on a schedule. Each new file matching the pattern becomes a job of the chosen feed; nothing is read twice or deleted."
      actions=${html`<button type="button" class="primary" onClick=${() => setAdding(true)}>New Blob Source</button>`} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="Blob sources" head=${["Name", "Status", "Last run", "Next run", "Container", "File pattern", "Feed", "Schedule"]}
          minor=${["Container", "File pattern", "Feed", "Schedule"]}
          empty="No blob sources yet."
          rows=${sources.map(
            (s) => html`<tr class=${failing(s.lastRun) ? "failing" : undefined}>
              <td class="wrap"><a href=${href("blob-sources", s.id)}>${s.name}</a></td>
              <td><${Status} value=${s.status} /></td>
              <td><${LastRun} run=${s.lastRun} timeZone="UTC" /></td>
              <td>${s.nextRunAt ? zonedTime(s.nextRunAt, "UTC") : "—"}</td>
              <td class="wrap minor">${s.containerUrl}${s.prefix ? html`<span class="sub">prefix ${s.prefix}</span>` : null}</td>
              <td class="mono minor">${s.filePattern}</td>
              <td class="minor">${feeds.find((f) => f.id === s.feedId)?.name ?? s.feedId}</td>
              <td class="minor">${blobScheduleText(s.schedule)}</td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Blob sources" />`
        : null
    }
    ${adding ? html`<${BlobSourceForm} onClose=${() => setAdding(false)} onSaved=${(/** @type {any} */ saved) => navigate(href("blob-sources", saved.id))} />` : null}`;
}
