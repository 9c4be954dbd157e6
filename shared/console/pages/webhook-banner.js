// @ts-check
// What an administrator must notice about webhooks: one the service disabled (and why), one whose
// deliveries have been failing. Shown above the list and on the webhook's own page.
import { dateTime } from "../lib/format.js";
import { html } from "../lib/html.js";
import { href } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";

/** The disabled webhooks, each with why, above the list (nothing when there is none). */
export function DisabledWebhooksBanner() {
  const disabled = useApi("api/v1/settings/webhooks", { status: "disabled", pageSize: 20 });
  /** @type {any[]} */
  const webhooks = disabled.body?.data ?? [];
  if (webhooks.length === 0) return null;
  const total = disabled.body.pagination.totalItems;
  return html`<section class="banner warn" aria-labelledby="disabled-webhooks">
    <h2 id="disabled-webhooks">${total === 1 ? "1 webhook is disabled" : `${total} webhooks are disabled`}</h2>
    <p>No events are sent to ${total === 1 ? "it" : "them"} until enabled again; then Recover sends what failed meanwhile.</p>
    <ul>
      ${webhooks.map(
        (w) => html`<li>
          <a href=${href("webhooks", w.id)}>${w.url}</a>: ${w.disabledReason ? `disabled because ${w.disabledReason}` : "disabled by an administrator"}
        </li>`,
      )}
    </ul>
  </section>`;
}

/** On a webhook's page: why it is disabled, or since when it has been failing. @param {{ webhook: any, onEnable: () => void }} props */
export function WebhookStateBanner({ webhook, onEnable }) {
  if (webhook.status === "disabled")
    return html`<section class="banner warn" aria-labelledby="webhook-disabled">
      <h2 id="webhook-disabled">This webhook is disabled</h2>
      <p>${webhook.disabledReason ? `Disabled because ${webhook.disabledReason}.` : "An administrator disabled it."} No events are sent to it until it is enabled; deliveries that failed meanwhile can then be recovered.</p>
      <div class="buttons"><button type="button" class="primary" onClick=${onEnable}>Enable webhook</button></div>
    </section>`;
  if (webhook.failingSince)
    return html`<section class="banner bad" aria-labelledby="webhook-failing">
      <h2 id="webhook-failing">Deliveries are failing</h2>
      <p>No delivery has succeeded since ${dateTime(webhook.failingSince)}. If none succeeds for a while longer, the service disables the webhook.</p>
    </section>`;
  return null;
}
