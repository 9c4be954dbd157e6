// @ts-check
// Webhooks: the subscriptions, Add Webhook (the spec's steps: URL, events, the test event, save).
import { dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { LoadState, PageHeader, Pager, Status, Table } from "../ui/bits.js";
import { DisabledWebhooksBanner } from "./webhook-banner.js";
import { WebhookForm } from "./webhook-form.js";

export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const list = useApi("api/v1/settings/webhooks", { page, pageSize: 20 });
  /** @type {any[]} */
  const webhooks = list.body?.data ?? [];
  return html`<${PageHeader} title="Webhooks"
      intro="The service posts signed event notifications to these URLs. A new URL is saved only after it answers a test event."
      actions=${html`<button type="button" class="primary" onClick=${() => setAdding(true)}>Add Webhook</button>`} />
    <${DisabledWebhooksBanner} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="Webhooks" head=${["Endpoint URL", "Events", "Status", "Description", "Created"]}
            empty="No webhooks yet. Add one to have events posted to your endpoint."
            rows=${webhooks.map(
              (w) => html`<tr>
                <td class="wrap"><a href=${href("webhooks", w.id)}>${w.url}</a></td>
                <td>${w.events.map((/** @type {string} */ e) => html`<code class="sub">${e}</code>`)}</td>
                <td><${Status} value=${w.status} />${
                  w.status === "disabled" && w.disabledReason
                    ? html`<span class="sub">${w.disabledReason}</span>`
                    : w.status === "enabled" && w.failingSince
                      ? html`<span class="sub">failing since ${dateTime(w.failingSince)}</span>`
                      : null
                }</td>
                <td class="wrap">${w.description ?? "—"}</td>
                <td>${dateTime(w.createdAt)}</td>
              </tr>`,
            )} />
          <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="Webhooks" />`
        : null
    }
    ${adding ? html`<${WebhookForm} onClose=${() => setAdding(false)} onSaved=${list.reload} onDone=${(/** @type {string} */ id) => navigate(href("webhooks", id))} />` : null}`;
}
