// @ts-check
// One feed: its definition, its SFTP login (a new password once, on rotation), its status (testing,
// live, paused), a dry run of a sample file, and its jobs.
import { api } from "../lib/api.js";
import { dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, Notice, PageHeader, SecretOnce, Status, Table } from "../ui/bits.js";
import { ConfirmDialog, Dialog } from "../ui/dialog.js";
import { labelOf } from "./exports.js";
import { DryRun } from "./feed-dry-run.js";
import { FeedForm } from "./feed-form.js";
import { FEED_DATA_TYPES, FEED_FORMATS } from "./feed-values.js";
import { AuditSection } from "./audit.js";

/** A mapping rule as one line of text: `Asset class; map Aktie=equity, Anleihe=bond`. @param {any} rule */
function ruleSummary(rule) {
  if (typeof rule === "string") return rule;
  return [
    rule.source,
    rule.value !== undefined ? `constant ${JSON.stringify(rule.value)}` : "",
    rule.format ? `date format ${rule.format}` : "",
    rule.map
      ? `map ${Object.entries(rule.map)
          .map(([from, to]) => `${from}=${String(to)}`)
          .join(", ")}`
      : "",
    rule.multiply !== undefined ? `× ${rule.multiply}` : "",
  ]
    .filter(Boolean)
    .join("; ");
}

/** @param {{ id?: string }} props */
export function FeedDetail({ id = "" }) {
  const path = `api/v1/settings/feeds/${encodeURIComponent(id)}`;
  const item = useApi(path);
  const [dialog, setDialog] = useState(/** @type {"edit" | "delete" | "rotate" | undefined} */ (undefined));
  const [password, setPassword] = useState(/** @type {string | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {any} */
  const feed = item.body?.data;
  if (feed === undefined)
    return html`<${PageHeader} title="Feed" back=${[href("feeds"), "All feeds"]} /><${LoadState} loading=${item.loading} error=${item.error} onRetry=${item.reload} />`;

  const setStatus = async (/** @type {string} */ status) => {
    try {
      await api("PATCH", path, { json: { status } });
      setNotice(
        status === "live"
          ? "The feed is live: delivered files are written."
          : status === "paused"
            ? "The feed is paused: delivered files wait in its inbox."
            : "The feed is testing: files are checked, nothing is written.",
      );
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
    item.reload();
  };
  const options = Object.entries(feed.options)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join("; ");

  return html`<${PageHeader} title=${feed.name} back=${[href("feeds"), "All feeds"]}
      actions=${html`
        ${feed.status !== "live" ? html`<button type="button" class="primary" onClick=${() => setStatus("live")}>Go live</button>` : null}
        ${feed.status !== "testing" ? html`<button type="button" onClick=${() => setStatus("testing")}>Back to testing</button>` : null}
        ${feed.status !== "paused" ? html`<button type="button" onClick=${() => setStatus("paused")}>Pause</button>` : null}
        <button type="button" onClick=${() => setDialog("edit")}>Edit</button>
        <button type="button" onClick=${() => setDialog("rotate")}>Rotate credentials</button>
        <button type="button" class="danger" onClick=${() => setDialog("delete")}>Delete</button>`} />
    <${Notice} text=${notice} />
    <section class="panel" aria-labelledby="feed-definition">
      <h2 id="feed-definition">Definition</h2>
      <${Details} items=${[
        ["Status", html`<${Status} value=${feed.status} />`],
        ["Provider", feed.provider],
        ["Data", `${labelOf(feed.dataType, FEED_DATA_TYPES)} from ${labelOf(feed.format, FEED_FORMATS)}`],
        ["File pattern", html`<code>${feed.filePattern}</code>`],
        ["Options", options || "defaults"],
        [
          "On a row error",
          feed.validation.onRowError === "skip-row"
            ? `skip the row${feed.validation.maxRejectedRows ? `, at most ${feed.validation.maxRejectedRows}` : ""}`
            : "reject the file",
        ],
        ["SFTP login", html`<span class="mono">${feed.sftp.username}@${feed.sftp.host}:${feed.sftp.port}</span>`],
        ["SFTP public keys", String(feed.sftp.publicKeys.length)],
        ["Jobs", html`<a href=${href("jobs", undefined, { feedId: feed.id })}>Jobs of this feed</a>`],
        ["Updated", dateTime(feed.updatedAt)],
      ]} />
      <h3 class="sub-heading">Mapping</h3>
      <${Table} caption="Mapping" head=${["Field", "Source or rule"]} empty="No field mapped."
        rows=${Object.entries(feed.mapping).map(([field, rule]) => html`<tr><td class="mono">${field}</td><td class="mono wrap">${ruleSummary(rule)}</td></tr>`)} />
    </section>
    <${DryRun} feedPath=${path} filePattern=${feed.filePattern} />
    ${
      dialog === "edit"
        ? html`<${FeedForm} feed=${feed} onClose=${() => setDialog(undefined)} onSaved=${() => {
            setNotice("Feed saved.");
            item.reload();
          }} />`
        : null
    }
    ${
      dialog === "delete"
        ? html`<${ConfirmDialog} title="Delete feed" confirmLabel="Delete feed" onClose=${() => setDialog(undefined)}
          message=${html`<p>Delete the feed <strong>${feed.name}</strong>?</p><p>Its SFTP login goes with it; files it has already ingested stay. This cannot be undone.</p>`}
          onConfirm=${() => api("DELETE", path)} onDone=${() => navigate(href("feeds"))} />`
        : null
    }
    ${
      dialog === "rotate"
        ? html`<${ConfirmDialog} title="Rotate SFTP credentials" confirmLabel="Issue a new password" onClose=${() => setDialog(undefined)}
          message=${html`<p>Issue a new SFTP password for <span class="mono">${feed.sftp.username}</span>? The current one stops working at once.</p>`}
          onConfirm=${async () => setPassword((await api("POST", `${path}/rotate-credentials`)).data.sftp.password)} />`
        : null
    }
    ${
      password !== undefined
        ? html`<${Dialog} title="New SFTP password" onClose=${() => setPassword(undefined)}>
          <${SecretOnce} label="SFTP password" value=${password} note="Shown once: copy it now and hand it to the provider. The old password no longer works." />
          <div class="buttons"><button type="button" class="primary" onClick=${() => setPassword(undefined)}>Done</button></div>
        </${Dialog}>`
        : null
    }
    <${AuditSection} type="feed" id=${id} />`;
}
