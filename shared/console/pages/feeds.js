// @ts-check
// Feeds: one per provider file type (the spec's onboarding: credentials, file specification and
// mapping, test with sample files, go live).
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { failing, LastRun, LoadState, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { labelOf } from "./exports.js";
import { FeedForm } from "./feed-form.js";
import { FEED_DATA_TYPES, FEED_FORMATS } from "./feed-values.js";

export function FeedsPage() {
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState(/** @type {string | undefined} */ (undefined));
  const list = useApi("api/v1/settings/feeds", { page, pageSize: 20 });
  /** @type {any[]} */
  const feeds = list.body?.data ?? [];
  return html`<${PageHeader} title="Feeds"
      intro="How each provider's files are recognised, read, mapped and validated. A new feed starts in testing: its files are checked and nothing is written until it goes live."
      actions=${html`<button type="button" class="primary" onClick=${() => setAdding(true)}>New Feed</button>`} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="Feeds" head=${["Name", "Status", "Last file", "Provider", "Data", "File pattern", "SFTP username"]}
          minor=${["Provider", "Data", "File pattern", "SFTP username"]}
          empty="No feeds yet. Create one per provider file type."
          rows=${feeds.map(
            (f) => html`<tr class=${failing(f.lastJob) ? "failing" : undefined}>
              <td class="wrap"><a href=${href("feeds", f.id)}>${f.name}</a></td>
              <td><${Status} value=${f.status} /></td>
              <td><${LastRun} run=${f.lastJob} href=${f.lastJob ? href("jobs", f.lastJob.id) : undefined} /></td>
              <td class="wrap minor">${f.provider}</td>
              <td class="minor">${labelOf(f.dataType, FEED_DATA_TYPES)}<span class="sub">${labelOf(f.format, FEED_FORMATS)}</span></td>
              <td class="mono minor">${f.filePattern}</td>
              <td class="mono minor">${f.sftp.username}</td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Feeds" />`
        : null
    }
    ${
      adding
        ? html`<${FeedForm} onClose=${() => (created ? navigate(href("feeds", created)) : setAdding(false))}
          onSaved=${(/** @type {any} */ feed) => {
            setCreated(feed.id);
            list.reload();
          }} />`
        : null
    }`;
}
