// @ts-check
// API Clients: who may call the API, with which scopes and tier; the secret shown once (created or
// rotated), disable to stop a client's tokens at once.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { sessionState } from "../lib/session.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, Notice, PageHeader, Pager, SecretOnce, Status, Table } from "../ui/bits.js";
import { ConfirmDialog, Dialog } from "../ui/dialog.js";
import { CheckboxGroup, Field, Form, FormButtons } from "../ui/fields.js";
import { AuditSection } from "./audit.js";

/** @type {[string, string][]} */
const SCOPES = [
  ["api.read", "api.read: every GET"],
  ["api.write", "api.write: imports, portfolio changes, resolving exceptions"],
  ["api.admin", "api.admin: System Settings"],
];
/** @type {[string, string][]} */
const TIERS = [
  ["standard", "Standard (60 requests a minute, 10,000 a day)"],
  ["premium", "Premium (300 a minute, 100,000 a day)"],
];

/** @param {{ client?: any, onClose: () => void, onSaved: () => void, onDone?: (clientId: string) => void }} props */
function ApiClientForm({ client, onClose, onSaved, onDone }) {
  const editing = client !== undefined;
  const form = useForm({
    name: client?.name ?? "",
    scopes: client?.scopes ?? ["api.read"],
    tier: client?.tier ?? "standard",
  });
  const [created, setCreated] = useState(/** @type {any} */ (undefined));
  const save = () =>
    form.submit(async (v) => {
      if (editing) {
        await api("PATCH", `api/v1/settings/api-clients/${encodeURIComponent(client.clientId)}`, { json: v });
        onSaved();
        onClose();
        return;
      }
      setCreated((await api("POST", "api/v1/settings/api-clients", { json: v })).data);
      onSaved();
    });
  if (created !== undefined) {
    const done = () => (onDone ? onDone(created.clientId) : onClose());
    return html`<${Dialog} title="API client created" onClose=${done}>
      <p class="success" role="status" tabindex="-1" data-autofocus>The client <strong>${created.name}</strong> can get tokens now with its id and secret (POST /auth/token, client credentials).</p>
      <${Details} items=${[
        ["Client ID", html`<span class="mono">${created.clientId}</span>`],
        ["Scopes", created.scopes.join(", ")],
        ["Tier", created.tier],
      ]} />
      <${SecretOnce} label="Client secret" value=${created.clientSecret} />
      <div class="buttons"><button type="button" class="primary" onClick=${done}>Done</button></div>
    </${Dialog}>`;
  }
  return html`<${Dialog} title=${editing ? "Edit API client" : "New API Client"} onClose=${onClose} busy=${form.pending}>
    <${Form} form=${form} onSubmit=${save}>
      <${Field} form=${form} name="name" label="Name" hint="Who or what uses it, e.g. the BI tool." />
      <${CheckboxGroup} form=${form} name="scopes" legend="Scopes" options=${SCOPES} />
      <${Field} form=${form} name="tier" label="Tier" options=${TIERS} />
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}

export function ApiClientsPage() {
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const list = useApi("api/v1/settings/api-clients", { page, pageSize: 20 });
  const me = sessionState().session?.clientId;
  /** @type {any[]} */
  const clients = list.body?.data ?? [];
  return html`<${PageHeader} title="API Clients"
      intro="Each client gets tokens with its id and secret (OAuth 2.0 client credentials). The secret is shown once; the service keeps only a hash."
      actions=${html`<button type="button" class="primary" onClick=${() => setAdding(true)}>New API Client</button>`} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="API clients" head=${["Name", "Client ID", "Scopes", "Tier", "Status", "Created"]}
          empty="No API clients."
          rows=${clients.map(
            (c) => html`<tr>
              <td class="wrap"><a href=${href("api-clients", c.clientId)}>${c.name}</a>${c.clientId === me ? html`<span class="sub">you are signed in with it</span>` : null}</td>
              <td class="mono">${c.clientId}</td>
              <td>${c.scopes.map((/** @type {string} */ s) => html`<code class="sub">${s}</code>`)}</td>
              <td>${c.tier}</td>
              <td><${Status} value=${c.status} /></td>
              <td>${dateTime(c.createdAt)}</td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="API clients" />`
        : null
    }
    ${adding ? html`<${ApiClientForm} onClose=${() => setAdding(false)} onSaved=${list.reload} onDone=${(/** @type {string} */ id) => navigate(href("api-clients", id))} />` : null}`;
}

/** One API client: its scopes and tier, edit, rotate its secret (shown once), disable or enable. @param {{ id?: string }} props */
export function ApiClientDetail({ id = "" }) {
  const path = `api/v1/settings/api-clients/${encodeURIComponent(id)}`;
  const item = useApi(path);
  const [dialog, setDialog] = useState(/** @type {"edit" | "rotate" | "status" | undefined} */ (undefined));
  const [secret, setSecret] = useState(/** @type {string | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const me = sessionState().session?.clientId;
  /** @type {any} */
  const client = item.body?.data;
  if (client === undefined)
    return html`<${PageHeader} title="API client" back=${[href("api-clients"), "All API clients"]} /><${LoadState} loading=${item.loading} error=${item.error} onRetry=${item.reload} />`;
  const active = client.status === "active";
  const close = () => setDialog(undefined);
  return html`<${PageHeader} title=${client.name} back=${[href("api-clients"), "All API clients"]}
      actions=${html`
        <button type="button" onClick=${() => setDialog("edit")}>Edit</button>
        <button type="button" onClick=${() => setDialog("rotate")}>Rotate secret</button>
        <button type="button" class=${active ? "danger" : ""} onClick=${() => setDialog("status")}>${active ? "Disable" : "Enable"}</button>`} />
    <${Notice} text=${notice} />
    <section class="panel" aria-labelledby="client-settings">
      <h2 id="client-settings">Client</h2>
      <${Details} items=${[
        ["Client ID", html`<span class="mono">${client.clientId}</span>`],
        ["Status", html`<${Status} value=${client.status} />`],
        ["Scopes", client.scopes.join(", ")],
        ["Tier", labelOfTier(client.tier)],
        ["Signed in with it", client.clientId === me ? "yes: this session" : "no"],
        ["Created", dateTime(client.createdAt)],
        ["Updated", dateTime(client.updatedAt)],
      ]} />
    </section>
    ${
      dialog === "edit"
        ? html`<${ApiClientForm} client=${client} onClose=${close} onSaved=${() => {
            setNotice("API client saved.");
            item.reload();
          }} />`
        : null
    }
    ${
      dialog === "rotate"
        ? html`<${ConfirmDialog} title="Rotate client secret" confirmLabel="Issue a new secret" onClose=${close}
          message=${html`<p>Issue a new secret for <strong>${client.name}</strong>? The current secret stops working at once: whatever uses it must be given the new one.</p>`}
          onConfirm=${async () => setSecret((await api("POST", `${path}/rotate-secret`)).data.clientSecret)} />`
        : null
    }
    ${
      dialog === "status"
        ? html`<${ConfirmDialog} title=${active ? "Disable API client" : "Enable API client"} confirmLabel=${active ? "Disable client" : "Enable client"} onClose=${close}
          message=${
            active
              ? html`<p>Disable <strong>${client.name}</strong>? It gets no new token and its current tokens stop working.${client.clientId === me ? " You are signed in with it: your session ends." : ""}</p>`
              : html`<p>Enable <strong>${client.name}</strong>? It can get tokens again with its current secret.</p>`
          }
          onConfirm=${() => api("PATCH", path, { json: { status: active ? "disabled" : "active" } })}
          onDone=${() => {
            setNotice(active ? "Client disabled: its tokens no longer work." : "Client enabled.");
            item.reload();
          }} />`
        : null
    }
    ${
      secret !== undefined
        ? html`<${Dialog} title="New client secret" onClose=${() => setSecret(undefined)}>
          <${SecretOnce} label="Client secret" value=${secret} />
          <div class="buttons"><button type="button" class="primary" onClick=${() => setSecret(undefined)}>Done</button></div>
        </${Dialog}>`
        : null
    }
    <${AuditSection} type="api-client" id=${id} />`;
}

/** @param {string} tier */
const labelOfTier = (tier) => TIERS.find(([t]) => t === tier)?.[1] ?? tier;
