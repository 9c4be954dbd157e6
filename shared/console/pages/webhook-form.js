// @ts-check
// Add Webhook / Edit: the endpoint URL, the events (from the service's catalogue, each with an example
// payload) and a description. Saving sends the signed webhook.test event first, as the API does:
// the dialog says so while it waits, then shows the outcome and, on creation, the signing secret once.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { html, useEffect, useState } from "../lib/html.js";
import { useApi } from "../lib/use-api.js";
import { SecretOnce } from "../ui/bits.js";
import { Dialog } from "../ui/dialog.js";
import { CheckboxGroup, Field, Form, FormButtons } from "../ui/fields.js";

/** @typedef {{ name: string, description: string, example: unknown }} WebhookEvent */

/** Seconds since `pending` turned true: the wait is visible while the endpoint has its 15 s. */
function useElapsed(/** @type {boolean} */ pending) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!pending) return;
    setSeconds(0);
    const timer = setInterval(() => setSeconds((s) => s + 1), 1000);
    return () => clearInterval(timer);
  }, [pending]);
  return seconds;
}

/**
 * @param {{ webhook?: any, onClose: () => void, onSaved: () => void, onDone?: (id: string) => void }} props `webhook` to edit; none to add
 */
export function WebhookForm({ webhook, onClose, onSaved, onDone }) {
  const editing = webhook !== undefined;
  const form = useForm({
    url: webhook?.url ?? "",
    events: webhook?.events ?? [],
    description: webhook?.description ?? "",
    secret: "",
  });
  const catalog = useApi("api/v1/settings/webhook-events");
  /** @type {WebhookEvent[]} */
  const events = catalog.body?.data ?? [];
  const [created, setCreated] = useState(/** @type {any} */ (undefined));
  const elapsed = useElapsed(form.pending);
  const verifying = !editing || form.values.url !== webhook.url;

  const save = () =>
    form.submit(async (v) => {
      if (editing) {
        /** @type {Record<string, unknown>} */
        const patch = {};
        if (v.url !== webhook.url) patch.url = v.url;
        if (JSON.stringify(v.events) !== JSON.stringify(webhook.events)) patch.events = v.events;
        if (v.description !== (webhook.description ?? ""))
          patch.description = v.description === "" ? null : v.description;
        if (Object.keys(patch).length > 0)
          await api("PATCH", `api/v1/settings/webhooks/${encodeURIComponent(webhook.id)}`, { json: patch });
        onSaved();
        onClose();
        return;
      }
      const body = {
        url: v.url,
        events: v.events,
        ...(v.description ? { description: v.description } : {}),
        ...(v.secret ? { secret: v.secret } : {}),
      };
      const answer = await api("POST", "api/v1/settings/webhooks", { json: body });
      setCreated(answer.data);
      onSaved();
    });

  if (created !== undefined) {
    const done = () => (onDone ? onDone(created.id) : onClose());
    return html`<${Dialog} title="Webhook added" onClose=${done}>
      <p class="success" role="status" tabindex="-1" data-autofocus>
        The endpoint answered the signed <code>webhook.test</code> event with a 2xx. The webhook is saved and enabled: <span class="mono">${created.url}</span> receives ${created.events.join(", ")}.
      </p>
      <${SecretOnce} label="Signing secret" value=${created.secret}
        note="Shown once: copy it to your receiver now, which verifies each delivery's webhook-signature with it (Standard Webhooks). The service stores it encrypted and never shows it again; rotate it to get a new one." />
      <div class="buttons"><button type="button" class="primary" onClick=${done}>Done</button></div>
    </${Dialog}>`;
  }

  return html`<${Dialog} title=${editing ? "Edit webhook" : "Add Webhook"} onClose=${onClose} busy=${form.pending} wide>
    <${Form} form=${form} onSubmit=${save}>
      <${Field} form=${form} name="url" label="Endpoint URL" type="url" placeholder="https://example.com/webhooks/investment-data"
        hint="An https URL on a public address. It must answer the signed webhook.test event with a 2xx within 15 seconds." />
      ${
        catalog.error
          ? html`<p role="alert" class="failure">The events could not be loaded: ${catalog.error.message}</p>`
          : html`<${CheckboxGroup} form=${form} name="events" legend="Events"
              options=${events.map((e) => /** @type {[string, string]} */ ([e.name, e.name]))}
              hint=${events.length === 0 ? "Loading the events…" : "Choose at least one. Each delivery is a signed JSON envelope like the example."}
              extra=${(/** @type {string} */ name) => {
                const event = events.find((e) => e.name === name);
                return event
                  ? html`<span class="hint">${event.description}</span>
                      <details><summary>Example payload</summary><pre class="example">${JSON.stringify(event.example, null, 2)}</pre></details>`
                  : null;
              }} />`
      }
      <${Field} form=${form} name="description" label="Description" hint="Optional: what this endpoint is for." />
      ${
        editing
          ? null
          : html`<details class="more"><summary>Signing secret (optional)</summary>
              <${Field} form=${form} name="secret" label="Your own signing secret"
                hint="whsec_ followed by base64 of 24 to 64 random bytes, so that your receiver can verify the test event too. Leave empty to have one generated." />
            </details>`
      }
      ${
        form.pending && verifying
          ? html`<p class="progress" role="status">
              Sending a signed <code>webhook.test</code> event to <span class="mono">${form.values.url}</span>… ${elapsed} s (the endpoint has 15 s to answer).
            </p>`
          : null
      }
      <${FormButtons} form=${form} label="Save" pendingLabel=${verifying ? "Sending test event…" : "Saving…"} onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}
